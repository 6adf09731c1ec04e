//go:build windows

package bunstore

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockServing locks one byte of the database file far beyond any offset SQLite reads, writes
// or locks (Windows locks are mandatory for the range they cover); the lock ends with the
// process.
func lockServing(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	ol := &windows.Overlapped{Offset: 0, OffsetHigh: 0x7fffffff}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return nil, ErrServedElsewhere
		}
		return nil, err
	}
	return f, nil
}
