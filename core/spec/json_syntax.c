/* What a JSON syntax error is, in words: cJSON says only where parsing stopped. A small scan
 * of the text up to that point knows what the parser expected there (a key, a ':', a value,
 * a ',' or the container's end), and the character found tells the usual slips apart. */
#include "spec.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum { X_VALUE, X_KEY, X_COLON, X_NEXT }; /* what the parser wants next */
#define JS_DEPTH 64

static int word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '+' || c == '-' || c == '.';
}

static int is_literal(const char *w, size_t n)
{
    if ((n == 4 && (!strncmp(w, "true", 4) || !strncmp(w, "null", 4))) || (n == 5 && !strncmp(w, "false", 5)))
        return 1;
    return n && (isdigit((unsigned char)w[0]) || (w[0] == '-' && n > 1 && isdigit((unsigned char)w[1])));
}

size_t spec_json_syntax_hint(const char *text, size_t len, size_t at, char *buf, size_t n)
{
    char stack[JS_DEPTH];
    int depth = 0, want = X_VALUE, comma = 0, open = 0; /* comma: the last token was a ','; open: a '{' or '[' */
    size_t i = 0;
    buf[0] = '\0';
    /* cJSON puts an error past the end on the last byte: then the whole text is scanned */
    const size_t limit = at + 1 >= len ? len : at;
    /* walks the tokens while each is one the grammar allows; stops at the first that is not (which
     * may come before cJSON's position: it reports where it gave up, sometimes a token later) */
    while (i < limit) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            i++;
            continue;
        }
        const char top = depth ? stack[depth - 1] : 0;
        int ok;
        if (c == '"') ok = want == X_KEY || want == X_VALUE;
        else if (c == '{' || c == '[') ok = want == X_VALUE;
        else if (c == '}') ok = top == '{' && (want == X_NEXT || (want == X_KEY && open));
        else if (c == ']') ok = top == '[' && (want == X_NEXT || (want == X_VALUE && open));
        else if (c == ':') ok = want == X_COLON;
        else if (c == ',') ok = want == X_NEXT && depth;
        else {
            size_t e = i;
            while (e < len && word_char(text[e])) e++;
            ok = want == X_VALUE && is_literal(text + i, e - i) && e < limit;
        }
        if (!ok) break;
        comma = open = 0;
        if (c == '"') {
            size_t j = i + 1;
            while (j < len && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
            if (j >= limit) { /* the error is inside this string */
                snprintf(buf, n, j >= len ? "a string that never ends (a missing '\"')"
                                          : "a bad escape or a control character inside a string");
                return j >= len ? i : at;
            }
            i = j + 1;
            want = want == X_KEY ? X_COLON : X_NEXT;
        } else if (c == '{' || c == '[') {
            if (depth == JS_DEPTH) return at;
            stack[depth++] = c;
            want = c == '{' ? X_KEY : X_VALUE;
            open = 1;
            i++;
        } else if (c == '}' || c == ']') {
            depth--;
            want = X_NEXT;
            i++;
        } else if (c == ':') {
            want = X_VALUE;
            i++;
        } else if (c == ',') {
            want = top == '{' ? X_KEY : X_VALUE;
            comma = 1;
            i++;
        } else {
            while (i < len && word_char(text[i])) i++;
            want = X_NEXT;
        }
    }
    /* the token where parsing stopped */
    size_t k = limit == len || i < at ? i : at;
    const size_t where = k;
    while (k < len && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) k++;
    if (k >= len) {
        snprintf(buf, n, depth ? "the document ends before its last '%c' is closed" : "the document ends early",
                 depth ? stack[depth - 1] : ' ');
        return where;
    }
    const char c = text[k];
    char word[24] = "";
    size_t w = 0;
    while (k + w < len && word_char(text[k + w]) && w + 1 < sizeof word) {
        word[w] = text[k + w];
        w++;
    }
    word[w] = '\0';
    if (w && k + w >= len && depth) { /* cJSON points at the last token when the text runs out */
        snprintf(buf, n, "the document ends before its last '%c' is closed", stack[depth - 1]);
        return where;
    }
    const char top = depth ? stack[depth - 1] : 0;
    if (comma && (c == '}' || c == ']'))
        snprintf(buf, n, "a trailing comma before '%c'", c);
    else if (c == '\'')
        snprintf(buf, n, "a single-quoted string: JSON needs double quotes");
    else if (want == X_KEY)
        snprintf(buf, n, w ? "an unquoted key \"%s\": keys need double quotes" : "expected a key in double quotes",
                 word);
    else if (want == X_COLON)
        snprintf(buf, n, "expected ':' after the key");
    else if (want == X_NEXT && top)
        snprintf(buf, n, top == '{' ? "expected ',' or '}' after a member" : "expected ',' or ']' after an element");
    else if (want == X_NEXT)
        snprintf(buf, n, "text after the document");
    else if (w)
        snprintf(buf, n, "\"%s\" is not a JSON value (a number, a string in double quotes, true, false, null, "
                 "an object or an array)", word);
    else
        snprintf(buf, n, "expected a value, found '%c'", c);
    return where;
}
