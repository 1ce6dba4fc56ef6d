// Package images builds hook-exec's reference images without any registry:
// each image is a root filesystem extracted from Debian packages
// (apt-get download, dpkg-deb -x) and sent to the engine as the build
// context of a FROM scratch Dockerfile.
//
// An image is tagged with a hash of its inputs (the Dockerfile, the recipe
// and the exact package files apt resolves), so building again when nothing
// changed does nothing.
package images

import (
	_ "embed"
	"errors"
)

//go:embed Dockerfile.hook-sh
var dockerfileSh string

//go:embed Dockerfile.hook-python
var dockerfilePython string

// Labels set on every image built here.
const (
	LabelRecipe = "io.hookexec.recipe"
	LabelInputs = "io.hookexec.inputs"
)

// ErrNotBuilt: no image of the recipe is in the engine.
var ErrNotBuilt = errors.New("image not built")

// Recipe is how one image is made.
type Recipe struct {
	Name       string   // image name below "hookexec/", e.g. "hook-sh"
	Packages   []string // Debian packages extracted into the root
	Busybox    bool     // link busybox's applets into /bin where nothing else provides them
	Remove     []string // paths (relative to the root) deleted after extraction
	Dockerfile string
}

// Repo is the image's repository name.
func (r Recipe) Repo() string { return "hookexec/" + r.Name }

var (
	// Shell is the reference image for .sh hooks.
	Shell = Recipe{
		Name:       "hook-sh",
		Packages:   []string{"busybox-static"},
		Busybox:    true,
		Dockerfile: dockerfileSh,
	}
	// Python is the reference image for .py hooks.
	Python = Recipe{
		Name: "hook-python",
		Packages: []string{
			"python3.11-minimal", "libpython3.11-minimal", "libpython3.11-stdlib", "python3-minimal",
			"python-is-python3", "libc6", "libgcc-s1", "libexpat1", "zlib1g", "libssl3", "libbz2-1.0",
			"libcrypt1", "libffi8", "liblzma5", "libsqlite3-0", "libuuid1", "libncursesw6", "libtinfo6",
			"libreadline8", "libdb5.3", "media-types", "busybox-static",
		},
		Busybox:    true,
		Dockerfile: dockerfilePython,
	}
)

// Reference lists the reference images.
var Reference = []Recipe{Shell, Python}

// ForLang returns the reference recipe for a script language ("sh", "py").
func ForLang(lang string) (Recipe, bool) {
	switch lang {
	case "sh":
		return Shell, true
	case "py":
		return Python, true
	}
	return Recipe{}, false
}
