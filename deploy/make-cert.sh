#!/bin/sh
# compose's init step for TLS (service "certs"): on first start, a self-signed certificate for
# HAProxy's TLS frontend, kept in the certs volume; a certificate already there (a real one, or the
# one made on an earlier start) is left alone. HAProxy reads one PEM file: the certificate (its
# chain after it), then the key. docs/operating.md, "TLS", says how to put a real one there.
#   SEAHAVEN_CERT_DIR   where the PEM goes        (default /certs)
#   SEAHAVEN_TLS_NAMES  the names it is good for  (default DNS:localhost,IP:127.0.0.1)
#   SEAHAVEN_CERT_OWNER who may read the key      (default 99:99, the haproxy image's user)
set -eu
dir="${SEAHAVEN_CERT_DIR:-/certs}"
names="${SEAHAVEN_TLS_NAMES:-DNS:localhost,IP:127.0.0.1}"
pem="$dir/seahaven.pem"
if [ -s "$pem" ]; then
  echo "certs: $pem is there already; kept"
  exit 0
fi
mkdir -p "$dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
first="${names%%,*}"
openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj "/CN=${first#*:}" \
  -addext "subjectAltName=$names" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
cat "$work/cert.pem" "$work/key.pem" > "$work/seahaven.pem"
# Clients that should trust it take the certificate alone (seahaven-client --ca FILE).
cp "$work/cert.pem" "$dir/seahaven-ca.pem"
chmod 600 "$work/seahaven.pem"
# The haproxy image runs as its own user, not root: the key is that user's alone.
if [ "$(id -u)" = 0 ]; then chown "${SEAHAVEN_CERT_OWNER:-99:99}" "$work/seahaven.pem"; fi
mv "$work/seahaven.pem" "$pem"
echo "certs: made a self-signed certificate for $names in $pem"
