#include "espbench/version.h"

const char *eb_version(void) { return ESPBENCH_VERSION; }
