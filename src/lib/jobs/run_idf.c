/* run --idf (run_idf.h): build per ESP-IDF, one run folder per IDF, and the
 * merge of their results into the run's own results.json. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "espbench/adapters/results_file.h"
#include "espbench/base/fs.h"
#include "espbench/jobs/merge.h"
#include "espbench/jobs/run_idf.h"

/* A folder name from a version: anything but [A-Za-z0-9._-] becomes '_'. */
static void safe_name(char *out, size_t cap, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '-' || c == '_';
        out[i] = ok ? c : '_';
    }
    out[i] = 0;
}

int eb_run_idf_prepare(const char *idf_path, const char *chip, const char *out_dir, eb_idf_build_req *req,
                       eb_run_idf_step *step, eb_error *err)
{
    memset(step, 0, sizeof *step);
    if (eb_idf_probe(idf_path, &step->idf, err))
        return err->code;
    req->idf = &step->idf;
    req->chip = chip;
    if (eb_idf_build_firmware(req, &step->build, err))
        return err->code;
    snprintf(step->image, sizeof step->image, "%s/espbench.bin", step->build.dir);
    struct stat sb;
    if (stat(step->image, &sb) != 0 || !S_ISREG(sb.st_mode))
        return eb_fail(err, EB_EIO, "build %s with ESP-IDF %s (%s): no espbench.bin in %s; see %s", chip,
                       step->idf.version, step->idf.path, step->build.dir, step->build.log);
    char ver[64];
    safe_name(ver, sizeof ver, step->idf.version);
    snprintf(step->out_dir, sizeof step->out_dir, "%s/idf-%s-%.7s", out_dir, ver,
             step->idf.commit[0] ? step->idf.commit : "nogit");
    return 0;
}

int eb_run_idf_collect(const char *out_dir, const eb_run_idf_step *steps, int n, eb_error *err)
{
    eb_results all;
    eb_results_init(&all);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        char path[1100];
        snprintf(path, sizeof path, "%s/results.json", steps[i].out_dir);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue; /* that IDF's run never started (its build failed) */
        eb_results one;
        eb_results_init(&one);
        if ((rc = eb_results_load(&one, path, err)) == 0) {
            for (int k = 0; k < one.n_entries; k++) {
                eb_provenance *pv = eb_entry_prov_mut(&one.entries[k]);
                if (!pv)
                    continue;
                if (!pv->idf_version[0])
                    snprintf(pv->idf_version, sizeof pv->idf_version, "%.47s", steps[i].idf.version);
                if (!pv->idf_commit[0])
                    snprintf(pv->idf_commit, sizeof pv->idf_commit, "%.47s", steps[i].idf.commit);
            }
            rc = eb_results_merge(&all, &one, path, EB_MERGE_REFUSE, err);
        }
        eb_results_free(&one);
    }
    if (!rc) {
        char path[1100];
        snprintf(path, sizeof path, "%s/results.json", out_dir);
        rc = eb_results_save_json(&all, path, err);
        if (!rc) {
            snprintf(path, sizeof path, "%s/results.csv", out_dir);
            rc = eb_results_save_csv(&all, path, err);
        }
    }
    eb_results_free(&all);
    return rc;
}
