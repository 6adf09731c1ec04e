//go:build unix

package bunstore

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockServing takes an exclusive flock(2) on the database file itself: flock locks are apart
// from the fcntl locks SQLite takes on the same file, and end with the process.
func lockServing(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrServedElsewhere
		}
		return nil, err
	}
	return f, nil
}
