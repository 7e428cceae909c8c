#include "espbench/base/version.h"

const char *eb_version(void) { return ESPBENCH_VERSION; }
