//go:build !unix

package main

// alive cannot tell here: the socket's end is all stop waits for.
func alive(int) bool { return false }
