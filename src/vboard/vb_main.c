/* espbench-vboard: a virtual ESP board on a pseudo-terminal (docs/vboard.md). */
#include <stdio.h>
#include <string.h>

#include "vb_args.h"
#include "vb_mkimage.h"
#include "vb_run.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "mkimage") == 0)
        return vb_mkimage_main(argc - 1, argv + 1);
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(vb_usage, stdout);
        return 0;
    }
    vb_opts o;
    eb_error err;
    eb_error_clear(&err);
    if (vb_args_parse(argc, argv, &o, &err)) {
        fprintf(stderr, "espbench-vboard: %s; see 'espbench-vboard --help'\n", err.msg); /* one line */
        return EB_ECONFIG;
    }
    int rc = vb_run(&o, stdout, &err);
    if (rc) {
        fprintf(stderr, "espbench-vboard: %s\n", err.msg);
        return rc;
    }
    return 0;
}
