#!/bin/bash
# Runs gen.py where JAX is installed (the device machine): cases into $OUT/xla-jax.
set -x
cd "$(dirname "$0")"
python3 -c "import jax, jaxlib; print(jax.__version__, jaxlib.__version__)"
JAX_PLATFORMS=cpu timeout 420 python3 gen.py "$OUT/gen" > "$OUT/gen.log" 2>&1
echo "gen rc $?"
tail -60 "$OUT/gen.log"
tar -C "$OUT" -czf "$OUT/gen.tgz" gen && rm -rf "$OUT/gen"; ls -la "$OUT"
