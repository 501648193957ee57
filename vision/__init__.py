"""From camera frames to observations: board finding, crops, recognition, and the
synthetic renderer and training tools. Judges nothing: that is the referee's job."""
