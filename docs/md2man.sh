#!/bin/sh
# Builds husk(8) (roff) from docs/husk.8.md with go-md2man, the tool runc and podman use; meson runs it
# (docs/meson.build). The page's first line is go-md2man's title block, `% HUSK 8`; this adds the footer's
# source (`husk VERSION`) and the manual's name, which the markdown does not carry.
#   docs/md2man.sh GO_MD2MAN VERSION INPUT OUTPUT
set -eu
[ $# -eq 4 ] || { echo "usage: $0 GO_MD2MAN VERSION INPUT OUTPUT" >&2; exit 2; }
title=$(head -n 1 "$3")
[ "$title" = "% HUSK 8" ] || { echo "$0: $3 must start with the title line '% HUSK 8', not '$title'" >&2; exit 1; }
{ echo "% HUSK 8 \"\" \"husk $2\" \"System Manager's Manual\""; tail -n +2 "$3"; } | "$1" -out "$4"
