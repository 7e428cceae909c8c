/* The request that made a results folder (run_request.h): its fields as a
 * JSON object, and a resume's request compared with it field by field, so
 * that "--resume" into a folder of another chip, duration or rate is refused
 * with each difference named instead of mixing figures. */
#include "run_request.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "espbench/formats/lab.h"
#include "espbench/formats/pattern.h"

/* A board as the request names it: "NAME:CHIP" plus what changes its tests. */
static void board_text(const eb_run_board *b, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s%s%s", b->name, b->name[0] ? ":" : "", b->chip);
    if (b->dialect[0] && n >= 0 && (size_t)n < cap)
        n += snprintf(out + n, cap - (size_t)n, " dialect=%s", b->dialect);
    if (b->peer.chip[0] && n >= 0 && (size_t)n < cap)
        n += snprintf(out + n, cap - (size_t)n, " peer=%s%s%s", b->peer.chip, b->peer.tier[0] ? "/" : "",
                      b->peer.tier);
    if (b->coprocessor[0] && n >= 0 && (size_t)n < cap)
        snprintf(out + n, cap - (size_t)n, " coprocessor=%s/%s", b->coprocessor, b->transport);
}

static void add_list(cJSON *obj, const char *key, const char *const *v, int n)
{
    cJSON *a = cJSON_AddArrayToObject(obj, key);
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
}

static void add_boards(cJSON *obj, const eb_run_opts *o)
{
    cJSON *a = cJSON_AddArrayToObject(obj, "boards");
    cJSON *fw = cJSON_AddArrayToObject(obj, "firmware_sha256");
    for (int i = 0; i < o->n_boards; i++) {
        char t[200];
        board_text(&o->boards[i], t, sizeof t);
        cJSON_AddItemToArray(a, cJSON_CreateString(t));
        cJSON_AddItemToArray(fw, cJSON_CreateString(o->boards[i].fw_sha256));
    }
    /* An emulated board (--qemu): the emulator as run and each tier's image. */
    for (int i = 0; i < o->n_boards; i++)
        if (o->boards[i].emulator[0]) {
            cJSON_AddStringToObject(obj, "emulator", o->boards[i].emulator);
            cJSON_AddStringToObject(obj, "tier_images", o->boards[i].tier_images);
            break;
        }
}

static void add_tests(cJSON *obj, unsigned mask)
{
    const char *names[32];
    int n = 0;
    for (int t = 0; t < 32 && n < 32; t++)
        if (mask & (1u << t) && eb_run_test_name(t))
            names[n++] = eb_run_test_name(t);
    add_list(obj, "tests", names, n);
}

static void add_sweep(cJSON *obj, const eb_sweep *s)
{
    char t[512] = "";
    int n = 0;
    if (s->n > 0)
        n = snprintf(t, sizeof t, "%s=", eb_sweep_var_name(s->var));
    for (int i = 0; i < s->n && n >= 0 && (size_t)n < sizeof t; i++)
        n += snprintf(t + n, sizeof t - (size_t)n, "%s%g", i ? "," : "", s->values[i]);
    cJSON_AddStringToObject(obj, "sweep", t);
}

/* Every list row of the dimension table (the radio's, the iperf
 * options'), as asked, under the row's key; the number that goes with a
 * row's value (the listen interval) under its extra_key. */
static void add_dims(cJSON *obj, const eb_run_opts *o)
{
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++) {
        if (!(eb_dim(d)->flags & EB_DIM_LIST))
            continue;
        const char *v[EB_RADIO_MAX_VALUES];
        for (int i = 0; i < o->radio.n[d]; i++)
            v[i] = o->radio.v[d][i];
        add_list(obj, eb_dim(d)->key, v, o->radio.n[d]);
    }
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++)
        if (eb_dim(d)->extra_key)
            cJSON_AddNumberToObject(obj, eb_dim(d)->extra_key, o->radio.extra[d]); /* 0: none given */
}

/* The lab instruments the run may drive (what sets a point's attenuation,
 * channel, power), and --ap / --ap-set. */
static void add_instruments(cJSON *obj, const eb_run_opts *o)
{
    cJSON *a = cJSON_AddArrayToObject(obj, "instruments");
    for (int i = 0; o->lab && i < o->lab->n_instruments; i++) {
        const eb_instr_spec *in = &o->lab->instruments[i];
        char t[480];
        int n = snprintf(t, sizeof t, "%s=%s/%s@%s", in->name, eb_instr_kind_name(in->kind), in->driver, in->address);
        if (in->channel && n >= 0 && (size_t)n < sizeof t)
            n += snprintf(t + n, sizeof t - (size_t)n, " channel %d", in->channel);
        for (int k = 0; k < in->n_serves && n >= 0 && (size_t)n < sizeof t; k++)
            n += snprintf(t + n, sizeof t - (size_t)n, "%s%s", k ? "," : " serves ", in->serves[k]);
        cJSON_AddItemToArray(a, cJSON_CreateString(t));
    }
    cJSON_AddStringToObject(obj, "ap", o->ap_name ? o->ap_name : "");
    cJSON_AddStringToObject(obj, "ap_set", o->ap_set ? o->ap_set : "");
}

char *run_request_json(const eb_run_opts *in)
{
    eb_run_opts o = *in;
    eb_run_opts_defaults(&o);
    cJSON *r = cJSON_CreateObject();
    add_boards(r, &o);
    cJSON_AddStringToObject(r, "firmware", o.firmware ? o.firmware : "");
    cJSON_AddStringToObject(r, "manifest", o.manifest ? o.manifest : "");
    const char *all[] = {"all"};
    add_list(r, "tiers", o.n_tiers ? o.tiers : all, o.n_tiers ? o.n_tiers : 1);
    add_tests(r, o.tests);
    cJSON_AddNumberToObject(r, "duration_s", o.duration_s);
    cJSON_AddNumberToObject(r, "interval_s", o.interval_s);
    cJSON_AddNumberToObject(r, "warmup_s", o.warmup_s);
    cJSON_AddNumberToObject(r, "repeat", o.repeat);
    cJSON_AddNumberToObject(r, "udp_rate_mbps", o.udp_rate_mbps); /* 0: per chip and test */
    add_sweep(r, &o.sweep);
    bool lat = (o.tests & (1u << EB_RUN_LATENCY)) || o.latency_under_load;
    cJSON_AddNumberToObject(r, "latency_count", lat ? o.latency_count : 0);
    cJSON_AddNumberToObject(r, "latency_interval_s", lat ? o.latency_interval_s : 0);
    cJSON_AddStringToObject(r, "latency_method", lat && o.latency_method ? o.latency_method : "");
    cJSON_AddBoolToObject(r, "latency_under_load", o.latency_under_load);
    char shard[32] = "";
    if (o.shard_total)
        snprintf(shard, sizeof shard, "%d/%d", o.shard_index, o.shard_total);
    cJSON_AddStringToObject(r, "shard", shard);
    cJSON_AddBoolToObject(r, "aggregate", o.aggregate);
    cJSON_AddStringToObject(r, "pattern", o.pattern ? o.pattern->name : "");
    add_dims(r, &o);
    add_instruments(r, &o);
    char *text = cJSON_Print(r);
    cJSON_Delete(r);
    return text;
}

/* How a field is named to the user, whether an empty value on either
 * side leaves it unknown (compared only when both are known), and whether
 * a folder from before it lacks it (compared only when both have it). */
static const struct field {
    const char *key, *label;
    bool known_only, since;
} fields[] = {
    {"boards", "boards (--chip, --lab, --sim, --port, --dialect, --peer-*, --coprocessor)", false, false},
    {"firmware_sha256", "firmware image (SHA-256)", true, false},
    {"emulator", "emulator (--qemu-bin)", true, true},
    {"tier_images", "--qemu-image (each tier's app SHA-256)", true, true},
    {"firmware", "--firmware", false, false},
    {"manifest", "--manifest", false, false},
    {"tiers", "--tier", false, false},
    {"tests", "--tests", false, false},
    {"duration_s", "--duration", false, false},
    {"interval_s", "--interval", false, false},
    {"warmup_s", "--warmup", false, false},
    {"repeat", "--repeat", false, false},
    {"udp_rate_mbps", "--udp-rate", false, false},
    {"sweep", "--sweep", false, false},
    {"latency_count", "--latency-count", false, false},
    {"latency_interval_s", "latency probe interval", false, false},
    {"latency_method", "--latency-method", false, false},
    {"latency_under_load", "--latency-under-load", true, false}, /* unknown in folders from before it */
    {"shard", "--shard", false, false},
    {"aggregate", "--aggregate", false, false},
    {"pattern", "--pattern", false, false},
    {"instruments", "the lab file's instruments", false, true},
    {"ap", "--ap", false, true},
    {"ap_set", "--ap-set", false, true},
};

/* A value as the user reads it: strings bare, lists joined by ",", numbers %g. */
static void value_text(const struct field *f, const cJSON *v, char *out, size_t cap)
{
    if (!v) {
        snprintf(out, cap, "(none)");
    } else if (cJSON_IsString(v)) {
        snprintf(out, cap, "%s", v->valuestring[0] ? v->valuestring : "(none)");
    } else if (cJSON_IsNumber(v)) {
        if (!strcmp(f->key, "udp_rate_mbps") && v->valuedouble == 0)
            snprintf(out, cap, "per chip");
        else
            snprintf(out, cap, "%g", v->valuedouble);
    } else if (cJSON_IsBool(v)) {
        snprintf(out, cap, "%s", cJSON_IsTrue(v) ? "on" : "off");
    } else if (cJSON_IsArray(v) && !cJSON_GetArraySize(v)) {
        snprintf(out, cap, "(none)");
    } else if (cJSON_IsArray(v)) {
        size_t n = 0;
        out[0] = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, v) {
            const char *s = cJSON_IsString(e) ? e->valuestring : "?";
            int k = snprintf(out + n, cap - n, "%s%s", n ? "," : "", s[0] ? s : "?");
            if (k < 0 || (size_t)k >= cap - n)
                break;
            n += (size_t)k;
        }
    } else {
        snprintf(out, cap, "?");
    }
}

/* Whether a value is unknown: "" or a list of "" only. */
static bool unknown(const cJSON *v)
{
    if (!v)
        return true;
    if (cJSON_IsString(v))
        return !v->valuestring[0];
    if (cJSON_IsArray(v)) {
        const cJSON *e;
        cJSON_ArrayForEach(e, v) if (!cJSON_IsString(e) || e->valuestring[0]) return false;
        return true;
    }
    return false;
}

static bool same_value(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return fabs(a->valuedouble - b->valuedouble) <= 1e-9 * fmax(1, fabs(a->valuedouble));
    return cJSON_Compare(a, b, true);
}

static int add_diff(char *out, size_t cap, int n, const char *label, const char *was, const char *now)
{
    size_t len = strlen(out);
    if (len < cap)
        snprintf(out + len, cap - len, "%s%s: %s then, %s now", n ? "; " : "", label, was, now);
    return n + 1;
}

/* One field of both requests: a difference named in out. */
static int diff_field(const struct field *f, const cJSON *was, const cJSON *now, char *out, size_t cap, int n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(was, f->key);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(now, f->key);
    if ((!a && !b) || (f->since && (!a || !b)) || (f->known_only && (unknown(a) || unknown(b))) ||
        (a && b && same_value(a, b)))
        return n;
    char ta[300], tb[300];
    value_text(f, a, ta, sizeof ta);
    value_text(f, b, tb, sizeof tb);
    return add_diff(out, cap, n, f->label, ta, tb);
}

static int diff_objects(const cJSON *was, const cJSON *now, char *out, size_t cap)
{
    int n = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        n = diff_field(&fields[i], was, now, out, cap, n);
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++) { /* the dimension rows' lists, their numbers */
        char label[48];
        snprintf(label, sizeof label, "--%s", eb_dim_flag(eb_dim(d)));
        struct field f = {eb_dim(d)->key, label, false, true};
        if (eb_dim(d)->flags & EB_DIM_LIST)
            n = diff_field(&f, was, now, out, cap, n);
        snprintf(label, sizeof label, "--%s", eb_dim(d)->extra_name ? eb_dim(d)->extra_name : "");
        f.key = eb_dim(d)->extra_key;
        if (f.key)
            n = diff_field(&f, was, now, out, cap, n);
    }
    return n;
}

int run_request_diff(const char *recorded, size_t len, const eb_run_opts *o, char *out, size_t cap)
{
    if (cap)
        out[0] = 0;
    cJSON *was = cJSON_ParseWithLength(recorded, len);
    if (!cJSON_IsObject(was)) {
        cJSON_Delete(was);
        return -1;
    }
    char *text = run_request_json(o);
    cJSON *now = text ? cJSON_Parse(text) : NULL;
    free(text);
    int n = now ? diff_objects(was, now, out, cap) : -1;
    cJSON_Delete(now);
    cJSON_Delete(was);
    return n;
}

/* The settings an entry records, against the run's: the first entry that
 * disagrees names the difference. */
static const struct entry_setting {
    const char *label;
    size_t in_opts, in_entry;
    bool udp_only; /* a rate: UDP entries only, and only when the run fixes one */
} entry_settings[] = {
    {"--duration", offsetof(eb_run_opts, duration_s), offsetof(eb_entry, duration_s), false},
    {"--interval", offsetof(eb_run_opts, interval_s), offsetof(eb_entry, interval_s), false},
    {"--udp-rate", offsetof(eb_run_opts, udp_rate_mbps), offsetof(eb_entry, udp_rate_mbps), true},
};

static double field_at(const void *base, size_t off)
{
    double v;
    memcpy(&v, (const char *)base + off, sizeof v);
    return v;
}

static int diff_entries(const eb_results *r, const eb_run_opts *o, char *out, size_t cap, int n)
{
    for (size_t k = 0; k < sizeof entry_settings / sizeof entry_settings[0]; k++) {
        const struct entry_setting *f = &entry_settings[k];
        double want = field_at(o, f->in_opts);
        if (f->udp_only && want <= 0)
            continue; /* per chip: the entries' rates differ by design */
        for (int i = 0; i < r->n_entries; i++) {
            const eb_entry *e = &r->entries[i];
            double had = field_at(e, f->in_entry);
            if (f->udp_only && e->test != EB_TEST_UDP_TX && e->test != EB_TEST_UDP_RX)
                continue;
            if (!isfinite(had) || had <= 0 || fabs(had - want) <= 1e-9 * fmax(1, want))
                continue;
            char ta[32], tb[32];
            snprintf(ta, sizeof ta, "%g", had);
            snprintf(tb, sizeof tb, "%g", want);
            n = add_diff(out, cap, n, f->label, ta, tb);
            break;
        }
    }
    return n;
}

int run_request_diff_results(const eb_results *r, const eb_run_opts *in, char *out, size_t cap)
{
    eb_run_opts o = *in;
    eb_run_opts_defaults(&o);
    if (cap)
        out[0] = 0;
    int n = 0;
    /* Boards by chip: a board of the folder with no board of that name and chip now. */
    char was[300] = "", now[300] = "";
    bool differ = r->n_boards != o.n_boards && r->n_boards > 0;
    for (int i = 0; i < r->n_boards; i++) {
        bool found = false;
        for (int j = 0; j < o.n_boards && !found; j++)
            found = !strcmp(r->boards[i].chip, o.boards[j].chip) &&
                    (!r->boards[i].board[0] || !o.boards[j].name[0] || !strcmp(r->boards[i].board, o.boards[j].name));
        differ |= !found;
        size_t l = strlen(was);
        snprintf(was + l, sizeof was - l, "%s%s%s%s", i ? "," : "", r->boards[i].board,
                 r->boards[i].board[0] ? ":" : "", r->boards[i].chip);
    }
    for (int j = 0; j < o.n_boards; j++) {
        size_t l = strlen(now);
        snprintf(now + l, sizeof now - l, "%s%s%s%s", j ? "," : "", o.boards[j].name, o.boards[j].name[0] ? ":" : "",
                 o.boards[j].chip);
    }
    if (differ)
        n = add_diff(out, cap, n, fields[0].label, was, now);
    return diff_entries(r, &o, out, cap, n);
}
