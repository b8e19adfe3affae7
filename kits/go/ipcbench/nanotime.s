// Present so that nanotime below may be declared without a body (go:linkname).
