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

//go:embed Dockerfile.hook-bash
var dockerfileBash string

//go:embed Dockerfile.hook-node
var dockerfileNode string

// Labels set on every image built here.
const (
	LabelRecipe = "io.hookexec.recipe"
	LabelInputs = "io.hookexec.inputs"
)

// ErrNotBuilt: no image of the recipe is in the engine.
var ErrNotBuilt = errors.New("image not built")

// Recipe is how one image is made.
type Recipe struct {
	Name     string   // image name below "hookexec/", e.g. "hook-sh"
	Packages []string // Debian packages extracted into the root
	Busybox  bool     // link busybox's applets into /bin where nothing else provides them
	Remove   []string // paths (relative to the root) deleted after extraction
	// Links are symlinks made after extraction, path -> target (relative
	// to the root): what Debian's maintainer scripts would have made
	// (update-alternatives), which extraction does not run.
	Links      map[string]string
	Dockerfile string
	// Purpose says what the image is for, in `images list`.
	Purpose string
}

// Repo is the image's repository name.
func (r Recipe) Repo() string { return "hookexec/" + r.Name }

// gitPackages are git and what it links, without perl: its porcelain in C
// works (status, diff, log, rev-parse, ls-files, branch). Hooks in every
// language ask git for the branch and the changed files (subprocess.run,
// execSync as often as $(git ...)).
var gitPackages = []string{
	"git", "libcurl3-gnutls", "libexpat1", "zlib1g", "libbrotli1", "libgnutls30", "libgssapi-krb5-2", "libidn2-0",
	"libldap-2.5-0", "libnettle8", "libnghttp2-14", "libpsl5", "librtmp1", "libssh2-1", "libzstd1", "libhogweed6",
	"libp11-kit0", "libtasn1-6", "libunistring2", "libffi8", "libk5crypto3", "libkrb5-3", "libkrb5support0",
	"libcom-err2", "libkeyutils1", "libsasl2-2", "libsasl2-modules-db", "libdb5.3", "libssl3", "libpcre2-8-0",
	"libc6", "libgcc-s1",
}

var (
	// Shell is the reference image for .sh hooks.
	Shell = Recipe{
		Name:       "hook-sh",
		Packages:   []string{"busybox-static"},
		Busybox:    true,
		Dockerfile: dockerfileSh,
		Purpose:    ".sh hooks under sh (busybox): the smallest image",
	}
	// Python is the reference image for .py hooks.
	Python = Recipe{
		Name: "hook-python",
		Packages: append([]string{
			"python3.11-minimal", "libpython3.11-minimal", "libpython3.11-stdlib", "python3-minimal",
			"python-is-python3", "libc6", "libgcc-s1", "libexpat1", "zlib1g", "libssl3", "libbz2-1.0",
			"libcrypt1", "libffi8", "liblzma5", "libsqlite3-0", "libuuid1", "libncursesw6", "libtinfo6",
			"libreadline8", "libdb5.3", "media-types", "busybox-static",
		}, gitPackages...),
		Busybox:    true,
		Dockerfile: dockerfilePython,
		Purpose:    ".py hooks: Python 3.11 and its standard library, and git",
	}
	// Bash is the reference image for shell hooks written for bash (a
	// bash shebang), with the programs public hooks call.
	Bash = Recipe{
		Name: "hook-bash",
		Packages: append([]string{
			"bash", "libtinfo6", "coreutils", "libacl1", "libattr1", "libgmp10", "libselinux1", "libpcre2-8-0",
			"jq", "libjq1", "libonig5", "grep", "sed", "gawk", "libmpfr6", "libsigsegv2", "libreadline8", "findutils",
			"libc6", "libgcc-s1", "libcrypt1", "liblzma5", "libbz2-1.0", "libmd0", "busybox-static",
			// python3 and its standard library: shell hooks parse JSON with
			// python3 -c as often as with jq.
			"python3.11-minimal", "libpython3.11-minimal", "libpython3.11-stdlib", "python3-minimal", "python-is-python3",
			"libsqlite3-0", "libuuid1", "libncursesw6", "media-types",
			// perl's core (perl -pe, perl -0777): hooks match text with it.
			"perl-base",
		}, gitPackages...),
		Busybox:    true,
		Links:      map[string]string{"usr/bin/awk": "gawk"},
		Dockerfile: dockerfileBash,
		Purpose:    "shell hooks that call more than busybox: bash, coreutils, jq, grep, sed, gawk, findutils, git, python3, perl",
	}
)

// Node is the reference image for JavaScript hooks: Debian's nodejs, its
// libnode and the modules Debian unbundled from it, and busybox for the
// sh launcher that starts node.
var Node = Recipe{
	Name: "hook-node",
	Packages: append([]string{
		"nodejs", "libnode108", "libbrotli1", "libc-ares2", "libicu72", "libnghttp2-14", "libuv1",
		"node-acorn", "node-cjs-module-lexer", "node-undici", "node-busboy", "node-xtend",
		"libssl3", "zlib1g", "libstdc++6", "libc6", "libgcc-s1", "busybox-static",
		// bash: a bash hook that calls node runs here (Arcturn's guard-bash.sh).
		"bash", "libtinfo6",
	}, gitPackages...),
	Busybox:    true,
	Dockerfile: dockerfileNode,
	Purpose:    "JavaScript hooks (.js, .mjs, .cjs, #!/usr/bin/env node), and shell hooks that call node: Node.js 18, bash and git",
}

// Reference lists the reference images.
var Reference = []Recipe{Shell, Python, Bash, Node}

// ForLang returns the reference recipe for a script language ("sh", "py",
// "js") or the interpreter a script names ("bash").
func ForLang(lang string) (Recipe, bool) {
	switch lang {
	case "sh":
		return Shell, true
	case "py":
		return Python, true
	case "bash":
		return Bash, true
	case "js":
		return Node, true
	}
	return Recipe{}, false
}
