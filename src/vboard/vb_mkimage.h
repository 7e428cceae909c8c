/* `espbench-vboard mkimage`: writes a valid application image for tests. */
#ifndef VB_MKIMAGE_H
#define VB_MKIMAGE_H

/* argv[0] is "mkimage". Prints errors on stderr; returns an exit code. */
int vb_mkimage_main(int argc, char **argv);

#endif
