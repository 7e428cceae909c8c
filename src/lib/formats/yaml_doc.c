/* Guard, load and the syntax error of every YAML loader (see yaml_doc.h). */
#include "yaml_doc.h"

#include <string.h>

#include "espbench/formats/yaml_guard.h"

static int syntax_error(const yaml_parser_t *p, const char *name, eb_error *err)
{
    const char *problem = p->problem ? p->problem : "malformed YAML";
    if (p->error == YAML_READER_ERROR)
        return eb_fail(err, EB_ECONFIG, "%s:1:1: YAML error: %s at byte %zu", name, problem, p->problem_offset);
    int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
    int ctx_line = (int)p->context_mark.line + 1;
    if (p->context && ctx_line != line)
        return eb_fail(err, EB_ECONFIG, "%s:%d:%d: YAML syntax error: %s %s (line %d)", name, line, col, problem,
                       p->context, ctx_line);
    return eb_fail(err, EB_ECONFIG, "%s:%d:%d: YAML syntax error: %s%s%s", name, line, col, problem,
                   p->context ? " " : "", p->context ? p->context : "");
}

int eb_yaml_load(yaml_document_t *doc, const char *text, size_t len, const char *name, eb_error *err)
{
    memset(doc, 0, sizeof *doc);
    int rc = eb_yaml_guard(text, len, name, err);
    if (rc)
        return rc;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return eb_fail(err, EB_EIO, "%s: cannot initialise the YAML parser", name);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, doc))
        rc = syntax_error(&parser, name, err);
    /* the document owns its nodes: the parser can go now */
    yaml_parser_delete(&parser);
    return rc;
}
