/* What one board of a run is: its port, chip, PC address and iperf port,
 * a forced dialect, what --sim set up for it, an ESP-Hosted pair or a peer
 * board (board to board). Plain data, filled by the lab file parser
 * (lab.h) or from the command line (eb_run_resolve), read by the run job. */
#ifndef ESPBENCH_BOARD_SPEC_H
#define ESPBENCH_BOARD_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#include "espbench/formats/model.h"

/* Board to board (run_pair.c): the board at the other end of the data
 * path. The board under test sends to it in the *_tx tests and receives
 * from it in the *_rx tests; the PC only drives both consoles. */
typedef struct eb_run_peer {
    char name[48];          /* for messages, files and results ("sim-peer", a lab peer's name) */
    char port[256];         /* port URL; "" = no peer (a test against the PC) */
    char chip[24];          /* profile chip name */
    char tier[32];          /* "" = the tier of the same name as the board's, test by test */
    char dialect[32];       /* force a console dialect; "" = detect */
    char fw_sha256[72];     /* --sim: of the image flashed */
    bool sim;
    char sim_control[256];
    bool port_no_lines;     /* as eb_run_board's */
} eb_run_peer;

/* One board of the run. */
typedef struct eb_run_board {
    char name[48];          /* lab board name; "sim" for --sim; "" for a lone board */
    char port[256];         /* port URL (port.h) */
    char chip[24];          /* profile chip name */
    char pc_ip[48];         /* the PC address this board talks to */
    uint16_t iperf_port;    /* the port both iperf ends use for this board */
    char dialect[32];       /* force a console dialect; "" = detect */
    char fw_sha256[72];     /* SHA-256 (hex) of the application image when known (--sim) */
    /* --sim: the virtual board's figures come from the published tables or
     * the tier model (docs/model.md); entries say which ("figure_source"). */
    bool sim;
    bool sim_model;         /* --sim-model: the model everywhere */
    eb_model_link sim_link; /* --sim-rssi/--sim-rtt/--sim-loss */
    char sim_control[256];  /* the virtual board's control socket ("" = none): link sweeps */
    /* ESP-Hosted (hosted.h): the host's pair, NULL for a board with its own
     * radio; the pair belongs to eb_run_setup. The co-processor's own port
     * ("" = flashed by the host's image set only). */
    const struct eb_hosted_pair *hosted;
    char coprocessor_port[256];
    /* A lab board's pair as its lab file asks for it (coprocessor:,
     * transport: "" = the only one), and where ("lab.yaml:LINE:COL" of
     * coprocessor:) for messages; run_hosted.c resolves it into hosted. */
    char coprocessor[24], transport[16];
    char hosted_at[320];
    eb_run_peer peer;       /* board to board; peer.port "" = against the PC */
    /* The far end as a URL an end driver claims (run --far-end; the first
     * far end of run_ends.c's list that wants it); "" = the peer or the PC. */
    char far_end[256];
    /* An emulated board (run --qemu, docs/emulator.md): its figures are the
     * emulator's ("figure_source": "emulator"). Behind QEMU's NAT the board
     * reaches the PC at nat_pc_ip (slirp's host alias) and the PC reaches the
     * board's servers at nat_board_ip (QEMU's forwards, same port numbers);
     * "" = each reaches the other directly. */
    bool qemu;
    char nat_pc_ip[48], nat_board_ip[48];
    /* The emulator as run ("QEMU emulator version 8.1.3, /path/qemu-system-riscv32
     * -M esp32c3") and the images per tier ("TIER=SHA-256 of its app,...";
     * "*" the default image's), for request.json; the emulated board and its
     * images, owned by the run's setup (run_qemu.c). */
    char emulator[320];
    char tier_images[1200];
    struct eb_run_qemu *qemu_ctl;
    /* What its source knows of its console's port: no DTR/RTS on it (a
     * virtual board's pty: resets say nothing of their absence), and how
     * many times a chip's boot time it may take to greet (an emulated chip
     * boots at its host's pace; 0 = 1). */
    bool port_no_lines;
    int boot_pace;
} eb_run_board;

#endif
