// Package users manages user names.
package users

import (
	"errors"
	"strings"
)

// maxName is the longest name a user may have.
const maxName = 20

// CreateUser checks name and creates the user.
func CreateUser(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New("name is empty")
	}
	if len(name) > maxName {
		return "", errors.New("name is too long")
	}
	return "created " + name, nil
}

// RenameUser checks the new name and renames the user.
func RenameUser(old, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New("name is empty")
	}
	if len(name) > maxName {
		return "", errors.New("name is too long")
	}
	return "renamed " + old + " to " + name, nil
}
