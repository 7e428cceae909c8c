/* Command-line parsing for espbench-vboard (see vb_args.h). */
#include "vb_args.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vb_faults.h"

const char vb_usage[] =
    "usage: espbench-vboard --chip CHIP [--link PATH] [--flash FILE] [--ip 127.X.Y.Z]\n"
    "                       [--ap SSID:PASS:RSSI | --ap SSID:env:VAR:RSSI]... [--baud-timing|--no-baud-timing]\n"
    "                       [--flash-timing|--no-flash-timing] [--sync-resets] [--forgiving]\n"
    "                       [--seed N] [--noise PCT] [--fault SPEC]... [--control PATH] [--profiles DIR]\n"
    "                       [--model] [--rssi DBM] [--phy MBPS] [--rtt MS] [--loss PCT] [--stations N]\n"
    "                       [--coprocessor CHIP [--transport BUS]] [--sdkconfig-json FILE] [--ethernet]\n"
    "       espbench-vboard mkimage --chip CHIP --project NAME --idf VERSION [--version V] [--size BYTES]\n"
    "                       [--seed N] [--profiles DIR] [--test-efficiency F] [--test-build-tier T] -o FILE\n";

int vb_parse_ip(const char *s, char out[16], eb_error *err)
{
    struct in_addr a;
    if (strlen(s) >= 16 || inet_pton(AF_INET, s, &a) != 1 || (ntohl(a.s_addr) >> 24) != 127)
        return eb_fail(err, EB_ECONFIG, "--ip %s: not a loopback address 127.X.Y.Z", s);
    strcpy(out, s);
    return 0;
}

int vb_parse_ap(const char *spec, vb_ap *ap, eb_error *err)
{
    memset(ap, 0, sizeof *ap);
    const char *last = strrchr(spec, ':');
    const char *first = strchr(spec, ':');
    if (!last || last == first)
        return eb_fail(err, EB_ECONFIG, "--ap: expected SSID:PASS:RSSI or SSID:env:VAR:RSSI, got %zu characters "
                                        "without two ':'", strlen(spec));
    char *end;
    long rssi = strtol(last + 1, &end, 10);
    if (!last[1] || *end || rssi < -100 || rssi > 0)
        /* Not echoed: without an RSSI, the text after the last ':' may be the password's end. */
        return eb_fail(err, EB_ECONFIG, "--ap: the part after the last ':' must be the RSSI, a number from "
                                        "-100 to 0 (SSID:PASS:RSSI)");
    size_t ssid_len = (size_t)(first - spec);
    if (ssid_len == 0 || ssid_len > 32)
        return eb_fail(err, EB_ECONFIG, "--ap: the SSID must have 1 to 32 characters");
    memcpy(ap->ssid, spec, ssid_len);
    const char *pass = first + 1;
    size_t pass_len = (size_t)(last - pass);
    char var[128];
    if (pass_len > 4 && strncmp(pass, "env:", 4) == 0) {
        size_t vlen = pass_len - 4;
        if (vlen >= sizeof var)
            return eb_fail(err, EB_ECONFIG, "--ap %s: environment variable name too long", ap->ssid);
        memcpy(var, pass + 4, vlen);
        var[vlen] = '\0';
        const char *v = getenv(var);
        if (!v)
            return eb_fail(err, EB_ECONFIG, "--ap %s: environment variable %s is not set (it holds the password)",
                           ap->ssid, var);
        pass = v;
        pass_len = strlen(v);
    }
    if (pass_len > 64 || (pass_len > 0 && pass_len < 8))
        return eb_fail(err, EB_ECONFIG, "--ap %s: a WPA password has 8 to 64 characters (or none for an open AP)",
                       ap->ssid);
    memcpy(ap->pass, pass, pass_len); /* never echoed: messages name the SSID only */
    ap->rssi = (int)rssi;
    return 0;
}

enum { OPT_BAUD = 256, OPT_NO_BAUD, OPT_FLASH_T, OPT_NO_FLASH_T, OPT_FORGIVING, OPT_SYNC_RESETS, OPT_SEED, OPT_NOISE,
       OPT_FAULT, OPT_CONTROL, OPT_PROFILES, OPT_AP, OPT_IP, OPT_MODEL, OPT_RSSI, OPT_PHY, OPT_RTT, OPT_LOSS, OPT_STATIONS,
       OPT_COPROCESSOR, OPT_TRANSPORT, OPT_SDKCONFIG_JSON, OPT_ETHERNET };

int vb_args_parse(int argc, char **argv, vb_opts *o, eb_error *err)
{
    static const struct option longopts[] = {
        {"chip", required_argument, NULL, 'c'},
        {"link", required_argument, NULL, 'l'},
        {"flash", required_argument, NULL, 'f'},
        {"ip", required_argument, NULL, OPT_IP},
        {"ap", required_argument, NULL, OPT_AP},
        {"baud-timing", no_argument, NULL, OPT_BAUD},
        {"no-baud-timing", no_argument, NULL, OPT_NO_BAUD},
        {"flash-timing", no_argument, NULL, OPT_FLASH_T},
        {"no-flash-timing", no_argument, NULL, OPT_NO_FLASH_T},
        {"forgiving", no_argument, NULL, OPT_FORGIVING},
        {"sync-resets", no_argument, NULL, OPT_SYNC_RESETS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"noise", required_argument, NULL, OPT_NOISE},
        {"fault", required_argument, NULL, OPT_FAULT},
        {"control", required_argument, NULL, OPT_CONTROL},
        {"profiles", required_argument, NULL, OPT_PROFILES},
        {"model", no_argument, NULL, OPT_MODEL},
        {"rssi", required_argument, NULL, OPT_RSSI},
        {"phy", required_argument, NULL, OPT_PHY},
        {"rtt", required_argument, NULL, OPT_RTT},
        {"loss", required_argument, NULL, OPT_LOSS},
        {"stations", required_argument, NULL, OPT_STATIONS},
        {"coprocessor", required_argument, NULL, OPT_COPROCESSOR},
        {"transport", required_argument, NULL, OPT_TRANSPORT},
        {"sdkconfig-json", required_argument, NULL, OPT_SDKCONFIG_JSON},
        {"ethernet", no_argument, NULL, OPT_ETHERNET},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    strcpy(o->ip, "127.0.0.1");
    o->baud_timing = true;
    o->flash_timing = true;
    o->seed = 1;
    eb_model_link_default(&o->model_link);
    optind = 1;
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': o->chip = optarg; break;
        case 'l': o->link = optarg; break;
        case 'f': o->flash = optarg; break;
        case OPT_CONTROL: o->control = optarg; break;
        case OPT_PROFILES: o->profiles = optarg; break;
        case OPT_BAUD: o->baud_timing = true; break;
        case OPT_MODEL: o->force_model = true; break;
        case OPT_COPROCESSOR: o->coprocessor = optarg; break;
        case OPT_TRANSPORT: o->transport = optarg; break;
        case OPT_SDKCONFIG_JSON: o->sdkconfig_json = optarg; break;
        case OPT_RSSI: case OPT_PHY: case OPT_RTT: case OPT_LOSS: case OPT_STATIONS: {
            static const char *const names[] = {"rssi", "phy", "rtt", "loss", "stations"};
            const char *name = names[c - OPT_RSSI];
            if (eb_model_link_set(&o->model_link, name, optarg, err))
                return eb_error_prefix(err, "--%s: ", name), EB_ECONFIG;
            break;
        }
        case OPT_NO_BAUD: o->baud_timing = false; break;
        case OPT_FLASH_T: o->flash_timing = true; break;
        case OPT_NO_FLASH_T: o->flash_timing = false; break;
        case OPT_FORGIVING: o->forgiving = true; break;
        case OPT_SYNC_RESETS: o->sync_resets = true; break;
        case OPT_ETHERNET: o->ethernet = true; break;
        case OPT_IP:
            if (vb_parse_ip(optarg, o->ip, err))
                return EB_ECONFIG;
            break;
        case OPT_AP:
            if (o->n_aps == VB_MAX_APS)
                return eb_fail(err, EB_ECONFIG, "--ap: at most %d access points", VB_MAX_APS);
            if (vb_parse_ap(optarg, &o->aps[o->n_aps], err))
                return EB_ECONFIG;
            o->n_aps++;
            break;
        case OPT_SEED: {
            unsigned long v = strtoul(optarg, &end, 0);
            if (!*optarg || *end || v > 0xFFFFFFFFul)
                return eb_fail(err, EB_ECONFIG, "--seed %s: not a number from 0 to 4294967295", optarg);
            o->seed = (uint32_t)v;
            break;
        }
        case OPT_NOISE:
            o->noise_pct = strtod(optarg, &end);
            if (!*optarg || *end || o->noise_pct < 0 || o->noise_pct > 100)
                return eb_fail(err, EB_ECONFIG, "--noise %s: not a percentage from 0 to 100", optarg);
            break;
        case OPT_FAULT:
            if (o->n_faults == VB_MAX_FAULTS)
                return eb_fail(err, EB_ECONFIG, "--fault: at most %d faults", VB_MAX_FAULTS);
            if (vb_fault_parse(optarg, &o->faults[o->n_faults], err))
                return EB_ECONFIG;
            o->n_faults++;
            break;
        case ':':
            return eb_fail(err, EB_ECONFIG, "%s needs a value", argv[optind - 1]);
        default:
            return eb_fail(err, EB_ECONFIG, "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return eb_fail(err, EB_ECONFIG, "unexpected argument \"%s\"", argv[optind]);
    if (!o->chip)
        return eb_fail(err, EB_ECONFIG, "--chip is required (e.g. --chip esp32s3)");
    return 0;
}
