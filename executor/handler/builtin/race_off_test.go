//go:build !race

package builtin

const raceBuild = false
