#!/bin/sh
# check-man-page.sh MAN_PAGE PROGRAM: the page renders without a groff
# warning, and documents every long option PROGRAM --help lists.
set -eu
page=$1
program=$2

if ! command -v groff >/dev/null; then
  echo "groff is not installed: cannot render $page" >&2
  exit 77
fi

warnings=$(groff -man -Tascii -ww -z "$page" 2>&1)
if [ -n "$warnings" ]; then
  printf '%s renders with warnings:\n%s\n' "$page" "$warnings" >&2
  exit 1
fi

# -Tascii renders \- as a plain hyphen; -P-cbou drops overstriking.
rendered=$(groff -man -Tascii -P-cbou "$page" 2>/dev/null)
status=0
for option in $("$program" --help-all | grep -o -- '--[a-z][a-z-]*' | sort -u); do
  case $option in
    --help-*) continue ;;  # GOption's own groups
  esac
  if ! printf '%s\n' "$rendered" | grep -q -- "$option"; then
    echo "$page does not document $option" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "$page renders cleanly and documents every option"
exit $status
