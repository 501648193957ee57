"""The synthetic table: photo-like renders of every game with exact ground truth.

Entry points (see docs/renderer.md):

- ``render_scene(game, position, seed, camera=None, options=None) -> (image, truth)``
- ``render_crops(kind, n, seed, size=64, start=0, variant='default') -> (images, labels)``
- ``ScriptedGame(game, positions, seed, fps=12)``: frames of a game being played.
"""
