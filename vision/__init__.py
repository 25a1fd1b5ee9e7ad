"""quarto-vision: a camera assistant for the physical board game Quarto."""

from vision.allocator import keep_freed_memory

__version__ = "0.1.0"

# Every frame allocates and frees arrays of megabytes: keep glibc from returning them to
# the system each time (see vision.allocator).
keep_freed_memory()
