#!/bin/sh
# Rebuilds the demo trace's PDBs from the fixture sources in this folder
# (needs Debian's clang, lld and llvm: apt-get install -y clang lld llvm).
# Outputs, all committed so that tests never need clang:
#   ../symbols/<pdb>/<GUID><age>/<pdb>   the PDBs in symbol-store layout
#   functions.tsv                        module, PDB identity, function RVAs
#   ../../crates/synth/src/explorer/pdbs.rs  the same table for the generator
# The PDB GUID changes with the clang version; after a rebuild, regenerate
# the trace (etlscope synth explorer-overlay -o traces/explorer-overlay.etl).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$here"
# module file name : source stem (the stem is also the PDB name)
modules="ntdll.dll:ntdll kernel32.dll:kernel32 KernelBase.dll:kernelbase
windows.storage.dll:windows.storage shell32.dll:shell32 SHCore.dll:shcore
user32.dll:user32 explorer.exe:explorer ntoskrnl.exe:ntkrnlmp"
rm -rf ../symbols
: > "$out/functions.tsv"
for m in $modules; do
    image=${m%%:*}
    stem=${m#*:}
    clang --target=x86_64-pc-windows-msvc -c -g -gcodeview -O1 \
        -fno-exceptions -ffreestanding -fno-stack-protector -ffile-compilation-dir=. \
        -o "$out/$stem.obj" "$stem.cpp"
    (cd "$out" && lld-link /dll /noentry /nodefaultlib /debug /pdb:"$stem.pdb" \
        /pdbaltpath:%_PDB% /pdbsourcepath:'C:\src' /Brepro \
        /out:"$stem.dll" "$stem.obj" > /dev/null)
    llvm-pdbutil dump --summary --symbols --section-headers "$out/$stem.pdb" > "$out/$stem.txt"
    python3 "$here/pdb_functions.py" "$image" "$stem.pdb" < "$out/$stem.txt" >> "$out/functions.tsv"
    key=$(awk -F'\t' -v p="$stem.pdb" '$2 == p { print $3 $4; exit }' "$out/functions.tsv")
    mkdir -p "../symbols/$stem.pdb/$key"
    cp "$out/$stem.pdb" "../symbols/$stem.pdb/$key/$stem.pdb"
done
cp "$out/functions.tsv" functions.tsv
python3 "$here/pdb_table_rs.py" < functions.tsv > ../../crates/synth/src/explorer/pdbs.rs
echo "built $(ls ../symbols | wc -l) PDBs; table in functions.tsv"
