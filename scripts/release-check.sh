#!/usr/bin/env bash
# Rehearses a release without writing to any registry or to this checkout: `changeset status`, then
# `changeset version` and a publish dry run in a throwaway clone. `changeset publish` (v2) has no
# --dry-run; for a pnpm workspace it runs `pnpm publish` for every package whose version is not on the
# registry yet, so `pnpm publish -r --dry-run` is the honest rehearsal (it packs and reports, sends nothing).
# The clone is thrown away: versioning here would consume the pending changesets.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
changeset=$root/node_modules/.bin/changeset

echo "-- changeset status"
# It compares with the base branch (main); a clone without a local main compares with HEAD instead.
if git rev-parse --verify -q main >/dev/null; then
  "$changeset" status
else
  "$changeset" status --since HEAD
fi

work=$(mktemp -d /tmp/agw-release-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone -q "$root" "$work/repo"
# Uncommitted changesets count too (a developer rehearsing before committing).
cp "$root"/.changeset/*.md "$work/repo/.changeset/"
cd "$work/repo"
ln -s "$root/node_modules" node_modules # @changesets/cli and pnpm, resolved from the clone's root
for dir in packages/* apps/*; do
  [[ -d $root/$dir/dist ]] || { echo "release check: $dir has no dist; run npm run build first" >&2; exit 1; }
  cp -r "$root/$dir/dist" "$dir/"
  ln -s "$root/$dir/node_modules" "$dir/node_modules"
done

echo "-- changeset version (in a throwaway clone)"
pending=$(find .changeset -name '*.md' ! -name README.md | wc -l)
"$changeset" version
left=$(find .changeset -name '*.md' ! -name README.md | wc -l)
echo "consumed $pending changesets ($left left)"
[[ $pending -eq 0 || $left -eq 0 ]] || { echo "release check: changesets left after version" >&2; exit 1; }
for dir in packages/* apps/*; do
  node -e "const p=require('./$dir/package.json'); if (p.private) process.exit(0); console.log(p.name + '@' + p.version)"
done
# Through a file: `git status | head` under pipefail fails with SIGPIPE (141) once the list outgrows
# head's 20 lines and git is still writing.
git status --short >"$work/status.txt"
echo "$(wc -l <"$work/status.txt") files changed by the version bump; the first 20:"
head -20 "$work/status.txt"

echo "-- pnpm publish -r --dry-run"
# --no-git-checks: the clone has the version bump uncommitted, as it would be before the release commit.
if ! npx pnpm publish -r --dry-run --no-git-checks >"$work/publish.log" 2>&1; then
  cat "$work/publish.log" >&2
  exit 1
fi
# What would go out: one name, version and file count per package.
grep -E 'npm notice (name|version|total files):' "$work/publish.log"
echo "release check: ok"
