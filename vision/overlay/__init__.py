"""Drawing results on images: each function returns a new image, never decides anything."""
