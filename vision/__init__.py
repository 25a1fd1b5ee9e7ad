"""quarto-vision: a camera assistant for the physical board game Quarto."""

__version__ = "0.1.0"
