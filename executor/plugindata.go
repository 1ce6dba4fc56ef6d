package executor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
)

// pluginData checks a plugin's data directory: a directory of the caller,
// reached by no link, right below the directory its host keeps them in
// (dataDir, relative to the home: the host's variable names it; nothing
// else is mounted read-write).
func pluginData(dir, dataDir string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if dataDir == "" || !filepath.IsAbs(dir) || filepath.Dir(filepath.Clean(dir)) != filepath.Join(home, dataDir) {
		return "", fmt.Errorf("--plugin-data %q: not a plugin's data directory (%s/ID)", dir, filepath.Join(home, dataDir))
	}
	// What exists of the way is checked before anything is made on it.
	if err := checkAncestors(dir, true); err != nil {
		return "", fmt.Errorf("--plugin-data %w", err)
	}
	// The host makes it when a hook first names it; so does a run.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("--plugin-data: %w", err)
	}
	clean, err := checkDir(dir)
	if err != nil {
		return "", fmt.Errorf("--plugin-data: %w", err)
	}
	if st, err := ownerOf(clean); err != nil || int(st.Uid) != os.Getuid() {
		return "", fmt.Errorf("--plugin-data %s: not a directory of uid %d", dir, os.Getuid())
	}
	if err := checkAncestors(clean, false); err != nil {
		return "", fmt.Errorf("--plugin-data %w", err)
	}
	return clean, nil
}

// checkAncestors checks every directory above dir (those that exist, when
// missingOK): Docker mounts dir by its path, later, so no one but root
// and the caller may be able to put another directory there, or a link to
// /, meanwhile (root's HOME may be a user's, under sudo -E). A directory
// its group may write is the caller's when that group is the caller's own
// (Ubuntu's and Fedora's umask 002 makes them so).
func checkAncestors(dir string, missingOK bool) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		switch {
		case missingOK && errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case !fi.IsDir():
			return fmt.Errorf("%s: %s is not a directory (a link is not followed)", dir, p)
		default:
			o, err := ownerOfInfo(fi)
			if err != nil {
				return err
			}
			if o.Uid != 0 && int(o.Uid) != os.Getuid() {
				return fmt.Errorf("%s: %s is uid %d's, who could replace what is below it", dir, p, o.Uid)
			}
			sticky := fi.Mode()&os.ModeSticky != 0
			if fi.Mode()&0o002 != 0 && !sticky {
				return fmt.Errorf("%s: anyone may write %s (mode %v), and replace what is below it", dir, p, fi.Mode())
			}
			if fi.Mode()&0o020 != 0 && !sticky && !ownGroup(o.Gid) {
				return fmt.Errorf("%s: group %d may write %s (mode %v), and replace what is below it", dir, o.Gid, p, fi.Mode())
			}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// ownGroup reports whether gid is the caller's own group: its primary
// one, named as the caller is (a user private group).
func ownGroup(gid uint32) bool {
	if int(gid) != os.Getgid() {
		return false
	}
	u, err := user.Current()
	if err != nil {
		return false
	}
	g, err := user.LookupGroupId(strconv.Itoa(int(gid)))
	return err == nil && g.Name == u.Username
}
