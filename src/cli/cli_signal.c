/* The stop signals of the long commands (run, tune): SIGINT (Ctrl-C), SIGTERM
 * (what a CI runner, systemd or `timeout` send) and SIGHUP (the terminal
 * closed) all ask the job to stop cleanly: the test in flight ends, the
 * finished results stay on disk, every child is reaped, exit 4. A second
 * signal stops waiting: the PC's iperf2 groups are killed and the program
 * exits at once (the virtual boards die with it through PR_SET_PDEATHSIG). */
#include <signal.h>
#include <unistd.h>

#include "commands.h"
#include "espbench/adapters/iperf_proc.h"

volatile sig_atomic_t cli_stop_flag;

static void on_stop_signal(int sig)
{
    if (cli_stop_flag) {
        eb_iperf_kill_all();
        _exit(EB_EINTR);
    }
    cli_stop_flag = sig;
}

void cli_catch_stop_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa = {0};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    cli_stop_flag = 0;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
    /* A closed pipe or terminal is a write error, not a death. */
    signal(SIGPIPE, SIG_IGN);
}
