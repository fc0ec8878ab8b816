"""Experiments: the grid runner and the paper reproductions built on it.

This is the top layer: it may print, show progress bars and write files.
"""
