# CPack: a Debian package of what `cmake --install` installs (the two programs, profiles, man
# pages, the bash completion). Build it with
#   cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DESPBENCH_TESTS=OFF
#   cmake --build build-deb && (cd build-deb && cpack -G DEB)
# The shared libraries the programs link come from dpkg-shlibdeps; what they load or run
# at run time is declared by hand: libcurl (loaded on the first download, http_fetch.c),
# libcrypto (libssl3: loaded on the first digest, digest.c; the vboard links it), iperf 2
# (the PC's end of every test, iperf_proc.c) and ping (the latency test, ping_proc.c).
# tests/e2e/install_deb.sh checks the list against the programs.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "espbench")
set(CPACK_PACKAGE_VENDOR "espbench")
set(CPACK_PACKAGE_CONTACT "espbench maintainers <espbench@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "electronics")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4, libssl3, iperf (>= 2.0.13), iputils-ping | inetutils-ping")
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
       "Flashes firmware through the ROM loader, switches Wi-Fi buffer tiers, runs iperf2 against\n"
       "the board's iperf and writes results matrices and reports. espbench-vboard is a virtual\n"
       "board for runs without hardware.")
# A package installs under /usr whatever prefix the build was configured with; the programs
# find their profiles beside them (src/lib/adapters/profile_files.c).
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
include(CPack)
