/* The rod as Foxglove sees it, shared by the MCAP export and the Foxglove WebSocket stream: the
 * channels' topics, schema names and JSON Schemas, and a frame's message on each channel as
 * JSON (message encoding "json", schema encoding "jsonschema").
 *
 *   /rod/scene          foxglove.SceneUpdate: entity "rod" in frame "world", the centreline as
 *                       a line strip and, with the radius, one cylinder per segment with the
 *                       deformed radius at its ends
 *   /rod/tip            rodd.Tip: t and the tip's x, y, z (m)
 *   /rod/energy         rodd.Energy: t, kinetic, elastic, gravity, total (J)
 *   /rod/volume_change  rodd.VolumeChange: t, volume_change (m^3, Sec. 5.2's Delta V)
 *
 * A channel is there when the frames carry what it needs (fox_channel_present). A model of
 * several rods has an entity per rod in /rod/scene (its id the rod's name) and the first rod's
 * tip on /rod/tip; the MCAP export and the live stream instead put each rod's scene and tip
 * (fox_message of rods[i]: the entity named after the rod) and base on channels of their own,
 * /rods/NAME/{scene,tip,base}. Prefix fox_. */
#ifndef RODD_FOXGLOVE_CHANNELS_H
#define RODD_FOXGLOVE_CHANNELS_H

#include "rod.h"

#include <stddef.h>

enum { FOX_SCENE, FOX_TIP, FOX_ENERGY, FOX_VOLUME, FOX_CHANNELS };

typedef struct {
    const char *topic, *schema_name, *schema; /* schema: a JSON Schema (draft 2020-12) */
} fox_channel;

const fox_channel *fox_channel_get(int i);
/* 1 when frames with these FRAME_F_* fields feed channel i. */
int fox_channel_present(int i, unsigned fields);
/* Frame f's message on channel i as JSON (NUL-terminated, malloc'd: the caller frees; its
 * length in *len); NULL when out of memory. Only the fields given are read. */
char *fox_message(int i, const rod_frame *f, unsigned fields, size_t *len);
/* Several rods: a rod whose base moves (a joined rod's is free) has its base's pose on a
 * channel of its own, /rods/NAME/base (foxglove.PoseInFrame in frame "world"); the topic here
 * is that pattern. rod is a frame of rods[] with base_moving; t the frame's time. */
const fox_channel *fox_base_channel(void);
char *fox_base_message(const rod_frame *rod, double t, size_t *len);
/* The frame time in ns, as the messages' timestamps (negative times clamp to 0). */
unsigned long long fox_time_ns(double t);

#endif
