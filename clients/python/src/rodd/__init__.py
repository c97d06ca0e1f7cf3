"""rodd: a client for the rodd simulation daemon (soft robotic rods).

    import rodd
    c = rodd.Client("http://127.0.0.1:8080")
    s = c.create(example="octopus-reaching")
    s.advance(by=0.1)
    print(s.frame().tip)
"""
from .client import WEBSOCKET_BACKENDS, Client, Recording, RoddError, Session, Stream
from .frames import FIELDS, Frame, FrameFormatError, decode_binary

__all__ = ["Client", "Recording", "RoddError", "Session", "Stream", "Frame", "FrameFormatError", "FIELDS", "decode_binary",
           "WEBSOCKET_BACKENDS"]
__version__ = "0.1.0"
