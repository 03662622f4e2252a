package users

import "testing"

func TestValidateName(t *testing.T) {
	if n, err := validateName("  ann "); err != nil || n != "ann" {
		t.Fatalf("validateName = %q, %v", n, err)
	}
	if _, err := validateName("   "); err == nil || err.Error() != "name is empty" {
		t.Fatalf("empty name: %v", err)
	}
	if _, err := validateName("abcdefghijklmnopqrstuvwxyz"); err == nil || err.Error() != "name is too long" {
		t.Fatalf("long name: %v", err)
	}
}

func TestUsers(t *testing.T) {
	if got, err := CreateUser(" bob "); err != nil || got != "created bob" {
		t.Fatalf("CreateUser = %q, %v", got, err)
	}
	if got, err := RenameUser("bob", " rob"); err != nil || got != "renamed bob to rob" {
		t.Fatalf("RenameUser = %q, %v", got, err)
	}
	if _, err := RenameUser("bob", ""); err == nil {
		t.Fatal("RenameUser accepted an empty name")
	}
}
