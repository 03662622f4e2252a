#!/bin/bash
set -eu

greet() {
	echo "hello $1"
}

function cleanup {
	rm -f /tmp/x
}

greet world
cleanup
