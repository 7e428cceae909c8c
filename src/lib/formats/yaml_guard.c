/* Size, depth and alias limits for YAML input (see yaml_guard.h). */
#include "espbench/formats/yaml_guard.h"

#include <stdbool.h>
#include <yaml.h>

static int at(eb_error *err, const char *name, const yaml_mark_t *m, const char *what)
{
    return eb_fail(err, EB_ECONFIG, "%s:%d:%d: %s", name, (int)m->line + 1, (int)m->column + 1, what);
}

int eb_yaml_guard(const char *text, size_t len, const char *name, eb_error *err)
{
    if (len > EB_YAML_MAX_BYTES)
        return eb_fail(err, EB_ECONFIG, "%s: %zu bytes is larger than the %u-byte limit for a YAML file; is this the right file?",
                       name, len, EB_YAML_MAX_BYTES);
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return eb_fail(err, EB_EIO, "%s: cannot initialise the YAML parser", name);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int rc = 0, depth = 0;
    for (bool done = false; !done && !rc;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev))
            break; /* the loader reports syntax errors with its own context */
        const yaml_char_t *anchor = NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_ALIAS_EVENT:
            rc = at(err, name, &ev.start_mark, "YAML aliases (*name) are not accepted here; write the value out");
            break;
        case YAML_SCALAR_EVENT:
            anchor = ev.data.scalar.anchor;
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            anchor = ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor
                                                          : ev.data.mapping_start.anchor;
            if (++depth > EB_YAML_MAX_DEPTH)
                rc = at(err, name, &ev.start_mark, "nested deeper than the 32 levels a profile or lab file needs");
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        default:
            break;
        }
        if (!rc && anchor)
            rc = at(err, name, &ev.start_mark, "YAML anchors (&name) are not accepted here; write the value out");
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    return rc;
}
