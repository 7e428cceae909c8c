/* The virtual board as an ESP-Hosted pair (--coprocessor CHIP --transport
 * BUS): the host chip's console is the stock iperf example (esp-hosted-mcu's
 * examples run ESP-IDF's iperf example over esp_wifi_remote: iperf-cmd and
 * wifi-cmd, the iperf-cmd-0.1 dialect for ESP-IDF v5.3..v6.0), the
 * co-processor's Wi-Fi and the transport are the pair model (model_hosted.c),
 * and an image built with CONFIG_ESP_HOSTED_RAW_THROUGHPUT_TRANSPORT (app
 * version "raw_tx" or "raw_rx": the direction chosen at build time) prints
 * the host's raw throughput report once a second from boot on, as
 * esp-hosted-mcu host/utils/stats.c does on its timer
 * (CONFIG_ESP_HOSTED_RAW_TP_REPORT_INTERVAL; the sim's images use 1 s). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/clock.h"
#include "espbench/adapters/hosted_files.h"
#include "vb_dialect.h"
#include "vb_hosted.h"

static eb_hosted_set pairs; /* one board per process */

int vb_hosted_setup(vb_board *b, eb_profiles *prof, const char *profiles_dir, const char *cp, const char *transport,
                    eb_error *err)
{
    if (!cp)
        return transport ? eb_fail(err, EB_ECONFIG, "--transport needs --coprocessor CHIP") : 0;
    int rc = eb_hosted_load_default(&pairs, prof, profiles_dir, err);
    const eb_hosted_pair *pair = NULL;
    if (!rc)
        rc = eb_hosted_select(&pairs, prof, b->chip->name, cp, transport, &pair, err);
    for (int i = 0; !rc && i < prof->n_chips; i++)
        if (&prof->chips[i] == b->chip)
            rc = eb_hosted_apply(&prof->chips[i], pair, err); /* the host runs the pair's tiers */
    if (!rc)
        b->hosted = pair;
    return rc;
}

void vb_hosted_free(void) { eb_hosted_free(&pairs); }

double vb_hosted_figure(vb_board *b, const eb_tier *t, const eb_model_link *l, int test)
{
    return eb_hosted_figure(b->model, b->profiles, b->hosted, t, l, test);
}

/* ------------------------------------------------------------ raw throughput report */

struct vb_rawtp {
    vb_console *c;
    pthread_t th;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    bool stop;
    double tx_mbps, rx_mbps;
};

static void *rawtp_main(void *arg)
{
    vb_rawtp *r = arg;
    unsigned long sec = 0;
    pthread_mutex_lock(&r->lock);
    while (!r->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        while (!r->stop && pthread_cond_timedwait(&r->cv, &r->lock, &ts) == 0)
            ;
        if (r->stop)
            break;
        /* stats.c divides bits by 1024 and prints with "%.2f" (the
         * floating-point build); its format ends in "\n\r" before the log's
         * own line end. */
        vb_con_log(r->c, 'I', "stats", "%lu-%lu sec Tx:%.2f Rx:%.2f kbps\r\n\r", sec, sec + 1,
                   r->tx_mbps * 1e6 / 1024.0, r->rx_mbps * 1e6 / 1024.0);
        sec++;
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

vb_rawtp *vb_hosted_rawtp_start(vb_console *c)
{
    vb_board *b = c->b;
    bool tx = !strcmp(c->app_version, "raw_tx"), rx = !strcmp(c->app_version, "raw_rx");
    if (!b->hosted || (!tx && !rx))
        return NULL;
    vb_rawtp *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->c = c;
    double v = eb_hosted_figure(b->model, b->profiles, b->hosted, NULL, NULL, tx ? EB_TEST_RAW_TX : EB_TEST_RAW_RX);
    if (isnan(v))
        v = 0;
    (tx ? &r->tx_mbps : &r->rx_mbps)[0] = v;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cv, NULL);
    vb_con_log(c, 'I', "stats", "Start raw throughput test: %s", tx ? "host to slave" : "slave to host");
    if (pthread_create(&r->th, NULL, rawtp_main, r) != 0) {
        pthread_mutex_destroy(&r->lock);
        pthread_cond_destroy(&r->cv);
        free(r);
        return NULL;
    }
    return r;
}

void vb_hosted_rawtp_stop(vb_rawtp *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->lock);
    r->stop = true;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->th, NULL);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->cv);
    free(r);
}
