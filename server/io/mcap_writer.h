/* An MCAP file written front to back (https://mcap.dev/spec, version 0x30 "0"): the magic, a
 * Header, Schema and Channel records, Messages in Chunks (Zstandard-compressed, or stored
 * where asked or where compressing gains nothing) each followed by its
 * MessageIndex records, DataEnd with the data section's CRC-32, then the summary (the schemas
 * and channels again, Statistics, MetadataIndex, ChunkIndex), the SummaryOffsets and the Footer
 * with the summary's CRC-32. It never seeks, so stdout and pipes work; a chunk is kept in memory
 * until it is full (MCAP_CHUNK_BYTES) or the file is closed.
 *
 * Prefix mcap_. One thread at a time. Functions return 0 (or an id), or -1 on a write error or
 * when out of memory, after which the writer is only fit for mcap_abort. */
#ifndef RODD_MCAP_WRITER_H
#define RODD_MCAP_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MCAP_CHUNK_BYTES (1u << 20) /* a chunk's records before it is written */
#define MCAP_ZSTD_LEVEL 3            /* zstd's default: JSON frames to about a tenth, fast */

typedef struct mcap_writer mcap_writer;

/* Writes the magic and the Header. out is borrowed (never closed); profile may be "". zstd:
 * 1 compresses the chunks, 0 stores them. */
mcap_writer *mcap_open(FILE *out, const char *profile, const char *library, int zstd);
/* A schema: its id (>= 1), or -1. data is copied. */
int mcap_schema(mcap_writer *w, const char *name, const char *encoding, const char *data, size_t len);
/* A channel of a schema from mcap_schema (0: none): its id (>= 0), or -1. */
int mcap_channel(mcap_writer *w, int schema_id, const char *topic, const char *message_encoding);
/* A Metadata record named name with one key and value. */
int mcap_metadata(mcap_writer *w, const char *name, const char *key, const char *value);
/* A message on a channel at log_time (ns); publish_time is the same. */
int mcap_message(mcap_writer *w, int channel, uint64_t log_time, const void *data, size_t len);
/* Writes the last chunk, the summary and the footer, and frees w: 0, or -1 (w freed anyway). */
int mcap_close(mcap_writer *w);
/* Frees w without finishing the file. NULL is fine. */
void mcap_abort(mcap_writer *w);

/* CRC-32 (ISO-HDLC, as zlib's crc32) of len bytes continued from crc (0 to start). */
uint32_t mcap_crc32(uint32_t crc, const void *data, size_t len);

#endif
