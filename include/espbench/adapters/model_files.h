/* The tier model's constants file on disk (adapters/model_files.c). */
#ifndef ESPBENCH_MODEL_FILES_H
#define ESPBENCH_MODEL_FILES_H

#include "espbench/base/error.h"
#include "espbench/formats/model.h"

/* From a file (adapters/model_files.c: read with a size cap, then as above). */
int eb_model_load(eb_model *m, const char *path, eb_error *err);

/* profiles/model/model.yaml next to the installed or source profiles, or
 * $ESPBENCH_MODEL. */
int eb_model_load_default(eb_model *m, eb_error *err);

#endif
