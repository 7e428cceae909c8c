/* ESP-IDF version strings as firmware prints them ("v5.3.1", "v6.0-dev",
 * "v5.1-beta1", "v5.3-128-g0a1b2c3"), ordered semantically for the reports
 * and comparisons of the IDF matrix. Pure. */
#ifndef ESPBENCH_IDF_VERSION_H
#define ESPBENCH_IDF_VERSION_H

/* <0, 0, >0 as a is older than, the same as, or newer than b:
 *  - the numbers after "v" compare as numbers, a missing one as 0
 *    (v4.4.2 < v5.1 < v5.1.1 < v5.3.1 < v6.0-dev);
 *  - a pre-release of a version comes before it, in ESP-IDF's order
 *    -dev < -alpha < -beta < -rc (v6.0-dev < v6.0-beta1 < v6.0-rc2 < v6.0);
 *  - git describe's "-N-gHASH" (N commits after the tag) comes after the
 *    tag, by N;
 *  - what is not a version ("master", a commit) comes after every version,
 *    by text; "" (unknown) before everything.
 * Ties are broken by the text, so the order is total. */
int eb_idf_version_cmp(const char *a, const char *b);

#endif
