/* Library version. */
#ifndef ESPBENCH_VERSION_H
#define ESPBENCH_VERSION_H

const char *eb_version(void);

#endif
