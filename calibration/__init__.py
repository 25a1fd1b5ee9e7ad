"""Camera intrinsics and board locks, saved as versioned JSON in OpenCV conventions."""
