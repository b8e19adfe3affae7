#!/usr/bin/env bash
# Every Catch test name can be run by ctest: catch_discover_tests registers a name cut at a ';'
# (a CMake list separator), and Catch, given the cut name as a filter, matches nothing and
# passes. A name starting with "--" reads as an option. Both are refused here.
# usage: test_names.sh SOURCE_DIR
set -euo pipefail
find "$1/tests" -name '*.cpp' -print0 | xargs -0 perl -0777 -ne '
  while (/TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)/g) {
    my $name = join "", ($1 =~ /"((?:[^"\\]|\\.)*)"/g);
    $count++;
    if ($name =~ /;/ || $name =~ /^--/) { print "$ARGV: \"$name\"\n"; $bad = 1 }
  }
  END { print STDERR "test_names: no TEST_CASE found\n" unless $count; exit($bad || !$count ? 1 : 0) }' &&
  exit 0
echo "test_names: the tests above cannot be run by name (no ';' in a name, none starting with '--')" >&2
exit 1
