/* The MCAP writer (mcap_writer.h). Every record is built in a byte buffer (little-endian, as
 * the specification fixes) and then either appended to the open chunk or written to the file;
 * what the summary repeats (schemas, channels) is kept as the records' bytes. */
#include "mcap_writer.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

enum {
    OP_HEADER = 0x01, OP_FOOTER = 0x02, OP_SCHEMA = 0x03, OP_CHANNEL = 0x04, OP_MESSAGE = 0x05,
    OP_CHUNK = 0x06, OP_MESSAGE_INDEX = 0x07, OP_CHUNK_INDEX = 0x08, OP_STATISTICS = 0x0B,
    OP_METADATA = 0x0C, OP_METADATA_INDEX = 0x0D, OP_SUMMARY_OFFSET = 0x0E, OP_DATA_END = 0x0F,
};

static const unsigned char magic[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

typedef struct {
    unsigned char *p;
    size_t len, cap;
    int failed; /* out of memory once: every later put is dropped, the caller sees -1 */
} bytes;

static void put(bytes *b, const void *data, size_t n)
{
    if (b->failed) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void put_le(bytes *b, uint64_t v, int n)
{
    unsigned char le[8];
    for (int i = 0; i < n; i++) le[i] = (unsigned char)(v >> (8 * i));
    put(b, le, (size_t)n);
}

static void put_u8(bytes *b, unsigned v) { put_le(b, v, 1); }
static void put_u16(bytes *b, unsigned v) { put_le(b, v, 2); }
static void put_u32(bytes *b, uint32_t v) { put_le(b, v, 4); }
static void put_u64(bytes *b, uint64_t v) { put_le(b, v, 8); }

static void put_str(bytes *b, const char *s)
{
    const size_t n = strlen(s);
    put_u32(b, (uint32_t)n);
    put(b, s, n);
}

/* Starts a record: its opcode and a length filled in by record_end. */
static size_t record_begin(bytes *b, int op)
{
    put_u8(b, (unsigned)op);
    put_u64(b, 0);
    return b->len;
}

static void record_end(bytes *b, size_t body)
{
    if (b->failed) return;
    const uint64_t n = b->len - body;
    for (int i = 0; i < 8; i++) b->p[body - 8 + i] = (unsigned char)(n >> (8 * i));
}

/* A length-prefixed (uint32 bytes) map or array: begin, put its entries, end. */
static size_t prefixed_begin(bytes *b)
{
    put_u32(b, 0);
    return b->len;
}

static void prefixed_end(bytes *b, size_t start)
{
    if (b->failed) return;
    const uint32_t n = (uint32_t)(b->len - start);
    for (int i = 0; i < 4; i++) b->p[start - 4 + i] = (unsigned char)(n >> (8 * i));
}

/* CRC-32 eight bytes at a time (slicing-by-8): table k maps a byte to its CRC followed by k
 * zero bytes. Byte by byte it was a sixth of an MCAP export's CPU: every byte is summed
 * twice, in its chunk's CRC and in the data section's. */
static uint32_t crc_tables[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_tables_fill(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_tables[0][i] = c;
    }
    for (int k = 1; k < 8; k++)
        for (int i = 0; i < 256; i++) {
            const uint32_t c = crc_tables[k - 1][i];
            crc_tables[k][i] = (c >> 8) ^ crc_tables[0][c & 0xFF];
        }
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t mcap_crc32(uint32_t crc, const void *data, size_t len)
{
    pthread_once(&crc_once, crc_tables_fill);
    const uint32_t(*t)[256] = (const uint32_t(*)[256])crc_tables;
    const unsigned char *p = data;
    crc = ~crc;
    for (; len >= 8; p += 8, len -= 8) {
        const uint32_t lo = crc ^ le32(p), hi = le32(p + 4);
        crc = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
              t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
    }
    while (len--) crc = t[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

typedef struct {
    bytes index;        /* this chunk's (log_time, offset) pairs */
    uint64_t messages;  /* in the whole file */
    uint32_t sequence;
} channel_state;

struct mcap_writer {
    FILE *out;
    int zstd;           /* chunks compressed with Zstandard (else stored) */
    bytes packed;       /* a compressed chunk's records */
    uint64_t offset;    /* bytes written so far */
    uint32_t data_crc;  /* of everything written before DataEnd */
    int failed;
    bytes rec;          /* the record being built */
    bytes schemas, channels, chunk_indexes, metadata_indexes; /* for the summary */
    int nschemas, nchannels, nmetadata, nchunks;
    channel_state *ch;
    bytes chunk;        /* the open chunk's records */
    uint64_t chunk_start, chunk_end; /* its messages' earliest and latest log times */
    uint64_t messages, start, end;
};

static int emit(mcap_writer *w, const void *p, size_t n, int data_section)
{
    if (w->failed || fwrite(p, 1, n, w->out) != n) {
        w->failed = 1;
        return -1;
    }
    if (data_section) w->data_crc = mcap_crc32(w->data_crc, p, n);
    w->offset += n;
    return 0;
}

/* Writes the record built in w->rec to the data section; its offset in *at if at. */
static int emit_rec(mcap_writer *w, uint64_t *at)
{
    if (w->rec.failed) w->failed = 1;
    if (at) *at = w->offset;
    const int rc = emit(w, w->rec.p, w->rec.len, 1);
    w->rec.len = 0;
    return rc;
}

mcap_writer *mcap_open(FILE *out, const char *profile, const char *library, int zstd)
{
    mcap_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->out = out;
    w->zstd = zstd;
    emit(w, magic, sizeof magic, 1);
    const size_t b = record_begin(&w->rec, OP_HEADER);
    put_str(&w->rec, profile);
    put_str(&w->rec, library);
    record_end(&w->rec, b);
    if (emit_rec(w, NULL) != 0) {
        mcap_abort(w);
        return NULL;
    }
    return w;
}

/* The record in w->rec goes to the file and its bytes to the summary's group too. */
static int emit_and_keep(mcap_writer *w, bytes *group)
{
    put(group, w->rec.p, w->rec.len);
    if (group->failed) w->failed = 1;
    return emit_rec(w, NULL);
}

int mcap_schema(mcap_writer *w, const char *name, const char *encoding, const char *data, size_t len)
{
    if (w->failed || w->nschemas >= 0xFFFF) return -1;
    const int id = ++w->nschemas;
    const size_t b = record_begin(&w->rec, OP_SCHEMA);
    put_u16(&w->rec, (unsigned)id);
    put_str(&w->rec, name);
    put_str(&w->rec, encoding);
    put_u32(&w->rec, (uint32_t)len);
    put(&w->rec, data, len);
    record_end(&w->rec, b);
    return emit_and_keep(w, &w->schemas) == 0 ? id : -1;
}

int mcap_channel(mcap_writer *w, int schema_id, const char *topic, const char *message_encoding)
{
    if (w->failed || w->nchannels >= 0xFFFF || schema_id < 0 || schema_id > w->nschemas) return -1;
    channel_state *ch = realloc(w->ch, (size_t)(w->nchannels + 1) * sizeof *ch);
    if (!ch) {
        w->failed = 1;
        return -1;
    }
    w->ch = ch;
    memset(&ch[w->nchannels], 0, sizeof *ch);
    const int id = w->nchannels++;
    const size_t b = record_begin(&w->rec, OP_CHANNEL);
    put_u16(&w->rec, (unsigned)id);
    put_u16(&w->rec, (unsigned)schema_id);
    put_str(&w->rec, topic);
    put_str(&w->rec, message_encoding);
    prefixed_end(&w->rec, prefixed_begin(&w->rec)); /* no metadata */
    record_end(&w->rec, b);
    return emit_and_keep(w, &w->channels) == 0 ? id : -1;
}

int mcap_metadata(mcap_writer *w, const char *name, const char *key, const char *value)
{
    if (w->failed) return -1;
    const size_t b = record_begin(&w->rec, OP_METADATA);
    put_str(&w->rec, name);
    const size_t m = prefixed_begin(&w->rec);
    put_str(&w->rec, key);
    put_str(&w->rec, value);
    prefixed_end(&w->rec, m);
    record_end(&w->rec, b);
    const uint64_t length = w->rec.len;
    uint64_t at;
    if (emit_rec(w, &at) != 0) return -1;
    const size_t i = record_begin(&w->metadata_indexes, OP_METADATA_INDEX);
    put_u64(&w->metadata_indexes, at);
    put_u64(&w->metadata_indexes, length);
    put_str(&w->metadata_indexes, name);
    record_end(&w->metadata_indexes, i);
    w->nmetadata++;
    return w->metadata_indexes.failed ? (w->failed = 1, -1) : 0;
}

/* The chunk's records compressed into w->packed: 1, or 0 to store them as they are (not
 * asked for, no memory, or nothing gained). */
static int pack(mcap_writer *w)
{
    if (!w->zstd) return 0;
    const size_t cap = ZSTD_compressBound(w->chunk.len);
    w->packed.len = 0;
    if (w->packed.cap < cap) {
        unsigned char *p = realloc(w->packed.p, cap);
        if (!p) return 0;
        w->packed.p = p;
        w->packed.cap = cap;
    }
    const size_t n = ZSTD_compress(w->packed.p, cap, w->chunk.p, w->chunk.len, MCAP_ZSTD_LEVEL);
    if (ZSTD_isError(n) || n >= w->chunk.len) return 0;
    w->packed.len = n;
    return 1;
}

/* Writes the open chunk, then its MessageIndex records, and notes its ChunkIndex. */
static int flush_chunk(mcap_writer *w)
{
    if (w->failed) return -1;
    if (w->chunk.len == 0) return 0;
    const int packed = pack(w);
    const bytes *data = packed ? &w->packed : &w->chunk;
    const char *compression = packed ? "zstd" : "";
    const size_t b = record_begin(&w->rec, OP_CHUNK);
    put_u64(&w->rec, w->chunk_start);
    put_u64(&w->rec, w->chunk_end);
    put_u64(&w->rec, w->chunk.len);
    put_u32(&w->rec, mcap_crc32(0, w->chunk.p, w->chunk.len)); /* of the records themselves */
    put_str(&w->rec, compression);
    put_u64(&w->rec, data->len);
    put(&w->rec, data->p, data->len);
    record_end(&w->rec, b);
    const uint64_t chunk_length = w->rec.len;
    uint64_t chunk_at;
    if (emit_rec(w, &chunk_at) != 0) return -1;
    /* one MessageIndex per channel with messages in this chunk, their offsets for the index */
    bytes offsets = {0};
    const uint64_t index_start = w->offset;
    for (int c = 0; c < w->nchannels; c++) {
        channel_state *ch = &w->ch[c];
        if (!ch->index.len) continue;
        put_u16(&offsets, (unsigned)c);
        put_u64(&offsets, w->offset);
        const size_t r = record_begin(&w->rec, OP_MESSAGE_INDEX);
        put_u16(&w->rec, (unsigned)c);
        put_u32(&w->rec, (uint32_t)ch->index.len);
        put(&w->rec, ch->index.p, ch->index.len);
        record_end(&w->rec, r);
        if (ch->index.failed) w->failed = 1;
        ch->index.len = 0;
        if (emit_rec(w, NULL) != 0) break;
    }
    bytes *ci = &w->chunk_indexes;
    const size_t i = record_begin(ci, OP_CHUNK_INDEX);
    put_u64(ci, w->chunk_start);
    put_u64(ci, w->chunk_end);
    put_u64(ci, chunk_at);
    put_u64(ci, chunk_length);
    put_u32(ci, (uint32_t)offsets.len);
    put(ci, offsets.p, offsets.len);
    put_u64(ci, w->offset - index_start);
    put_str(ci, compression);
    put_u64(ci, data->len);
    put_u64(ci, w->chunk.len);
    record_end(ci, i);
    if (offsets.failed || ci->failed) w->failed = 1;
    free(offsets.p);
    w->chunk.len = 0;
    w->nchunks++;
    return w->failed ? -1 : 0;
}

int mcap_message(mcap_writer *w, int channel, uint64_t log_time, const void *data, size_t len)
{
    if (w->failed || channel < 0 || channel >= w->nchannels) return -1;
    channel_state *ch = &w->ch[channel];
    if (w->chunk.len == 0) w->chunk_start = w->chunk_end = log_time;
    if (log_time < w->chunk_start) w->chunk_start = log_time;
    if (log_time > w->chunk_end) w->chunk_end = log_time;
    if (w->messages == 0 || log_time < w->start) w->start = log_time;
    if (w->messages == 0 || log_time > w->end) w->end = log_time;
    put_u64(&ch->index, log_time);
    put_u64(&ch->index, w->chunk.len); /* from the start of the chunk's records */
    const size_t b = record_begin(&w->chunk, OP_MESSAGE);
    put_u16(&w->chunk, (unsigned)channel);
    put_u32(&w->chunk, ch->sequence++);
    put_u64(&w->chunk, log_time);
    put_u64(&w->chunk, log_time);
    put(&w->chunk, data, len);
    record_end(&w->chunk, b);
    if (w->chunk.failed || ch->index.failed) {
        w->failed = 1;
        return -1;
    }
    ch->messages++;
    w->messages++;
    return w->chunk.len >= MCAP_CHUNK_BYTES ? flush_chunk(w) : 0;
}

static void statistics(mcap_writer *w, bytes *s)
{
    const size_t b = record_begin(s, OP_STATISTICS);
    put_u64(s, w->messages);
    put_u16(s, (unsigned)w->nschemas);
    put_u32(s, (uint32_t)w->nchannels);
    put_u32(s, 0); /* attachments */
    put_u32(s, (uint32_t)w->nmetadata);
    put_u32(s, (uint32_t)w->nchunks);
    put_u64(s, w->start);
    put_u64(s, w->end);
    const size_t m = prefixed_begin(s);
    for (int c = 0; c < w->nchannels; c++) {
        put_u16(s, (unsigned)c);
        put_u64(s, w->ch[c].messages);
    }
    prefixed_end(s, m);
    record_end(s, b);
}

int mcap_close(mcap_writer *w)
{
    if (flush_chunk(w) != 0) {
        mcap_abort(w);
        return -1;
    }
    const size_t d = record_begin(&w->rec, OP_DATA_END);
    put_u32(&w->rec, w->data_crc);
    record_end(&w->rec, d);
    emit_rec(w, NULL);
    /* the summary: groups of one opcode each, then an offset record per group */
    const uint64_t summary_start = w->offset;
    bytes sum = {0}, offs = {0};
    bytes stats = {0};
    statistics(w, &stats);
    const struct {
        int op;
        const bytes *b;
    } groups[] = {{OP_SCHEMA, &w->schemas}, {OP_CHANNEL, &w->channels}, {OP_STATISTICS, &stats},
                  {OP_METADATA_INDEX, &w->metadata_indexes}, {OP_CHUNK_INDEX, &w->chunk_indexes}};
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
        if (!groups[g].b->len) continue;
        const size_t b = record_begin(&offs, OP_SUMMARY_OFFSET);
        put_u8(&offs, (unsigned)groups[g].op);
        put_u64(&offs, summary_start + sum.len);
        put_u64(&offs, groups[g].b->len);
        record_end(&offs, b);
        put(&sum, groups[g].b->p, groups[g].b->len);
    }
    const uint64_t offsets_start = summary_start + sum.len;
    put(&sum, offs.p, offs.len);
    /* the footer; its CRC covers the summary up to and including summary_offset_start */
    put_u8(&sum, OP_FOOTER);
    put_u64(&sum, 8 + 8 + 4); /* its length is known now: the CRC covers it */
    put_u64(&sum, summary_start);
    put_u64(&sum, offsets_start);
    if (!sum.failed) put_u32(&sum, mcap_crc32(0, sum.p, sum.len));
    put(&sum, magic, sizeof magic);
    if (sum.failed || offs.failed || stats.failed) w->failed = 1;
    else emit(w, sum.p, sum.len, 0);
    free(sum.p);
    free(offs.p);
    free(stats.p);
    const int rc = w->failed || fflush(w->out) != 0 ? -1 : 0;
    mcap_abort(w);
    return rc;
}

void mcap_abort(mcap_writer *w)
{
    if (!w) return;
    for (int c = 0; c < w->nchannels; c++) free(w->ch[c].index.p);
    free(w->ch);
    free(w->rec.p);
    free(w->schemas.p);
    free(w->channels.p);
    free(w->chunk_indexes.p);
    free(w->metadata_indexes.p);
    free(w->chunk.p);
    free(w->packed.p);
    free(w);
}
