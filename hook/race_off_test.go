//go:build !race

package hook

const raceBuild = false
