/* spec_json_syntax_hint: what a JSON syntax error is, at the position where it is. */
#include <criterion/criterion.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "spec.h"

static void expect_hint(const char *text, size_t at_byte, const char *words)
{
    char buf[160];
    /* where cJSON stops, as spec_parse_json asks it: at the error, or after a document that
     * text follows */
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, strlen(text), &end, 0);
    cJSON_Delete(root);
    size_t at = end ? (size_t)(end - text) : 0;
    at = spec_json_syntax_hint(text, strlen(text), at, buf, sizeof buf);
    cr_expect_eq(at, at_byte, "%s: at byte %zu, not %zu (%s)", text, at, at_byte, buf);
    cr_expect(strstr(buf, words) != NULL, "%s: \"%s\" has no \"%s\"", text, buf, words);
}

Test(json_syntax, each_slip_is_named_where_it_is)
{
    expect_hint("{\"a\": 1,}", 8, "a trailing comma before '}'");
    expect_hint("{\"rod\": {\"length\": 1,}}", 21, "a trailing comma before '}'");
    expect_hint("[1, 2,]", 6, "a trailing comma before ']'");
    expect_hint("{model: 1}", 1, "an unquoted key \"model\"");
    expect_hint("{'a': 1}", 1, "single-quoted");
    expect_hint("{\"a\" 1}", 5, "expected ':' after the key");
    expect_hint("{\"a\": 1 \"b\": 2}", 8, "expected ',' or '}' after a member");
    expect_hint("[1 2]", 3, "expected ',' or ']' after an element");
    expect_hint("{\"a\": tru}", 6, "\"tru\" is not a JSON value");
    expect_hint("{\"a\": [1, 2", 10, "ends before its last '[' is closed");
    expect_hint("{", 1, "ends before its last '{' is closed");
    expect_hint("{\"a\": \"abc", 6, "a string that never ends");
    expect_hint("{\"a\": 1}}", 8, "text after the document");
}
