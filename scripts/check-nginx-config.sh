#!/usr/bin/env bash
# Checks the shipped nginx example (deploy/nginx-hal.conf, or the file given) with this machine's `nginx -t`, so a
# directive the installed nginx does not know (e.g. `http2 on;` before nginx 1.25.1, as on Debian 12's 1.22.1)
# fails here rather than on an operator's server.
#
# The file is checked as shipped: only its certificate paths are pointed at a throwaway self-signed pair (made by
# `openssl req` into a temp folder), and it is included in a minimal nginx.conf under a temp prefix, the way
# /etc/nginx/nginx.conf includes sites-enabled/. Nothing is installed, nothing listens (`-t` only parses and loads).
# Without nginx the check is skipped with a message (exit 0); every other problem exits non-zero.
#
# Usage: scripts/check-nginx-config.sh [path/to/nginx-site.conf]
set -euo pipefail
cd "$(dirname "$0")/.."

site="${1:-deploy/nginx-hal.conf}"
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  echo "nginx is not installed: $site is not checked here (apt-get install -y nginx)"
  exit 0
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
if ! command -v openssl >/dev/null 2>&1; then
  echo "openssl is needed to make the throwaway certificate" >&2
  exit 2
fi
[ -f "$site" ] || { echo "no such file: $site" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/logs" "$work/temp"

# The example's certificate paths name a Let's Encrypt folder that does not exist here; nginx -t loads the
# certificate, so a real (self-signed) pair stands in for it.
cert_dir="/etc/letsencrypt/live/hal.example.org"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=hal.example.org" \
  -keyout "$work/privkey.pem" -out "$work/fullchain.pem" >/dev/null 2>&1
grep -q "$cert_dir/" "$site" || { echo "$site: expected the certificate paths under $cert_dir/" >&2; exit 2; }
sed "s#$cert_dir/#$work/#g" "$site" >"$work/site.conf"

# The surroundings Debian's /etc/nginx/nginx.conf gives a site file, with every path inside the temp prefix.
cat >"$work/nginx.conf" <<EOF
pid $work/nginx.pid;
error_log $work/logs/error.log;
events {}
http {
    access_log $work/logs/access.log;
    client_body_temp_path $work/temp/client;
    proxy_temp_path $work/temp/proxy;
    fastcgi_temp_path $work/temp/fastcgi;
    uwsgi_temp_path $work/temp/uwsgi;
    scgi_temp_path $work/temp/scgi;
    include $work/site.conf;
}
EOF

echo "checking $site with $("$nginx_bin" -v 2>&1)"
# -e: nginx opens its compiled-in error log before reading the config; keep that in the prefix too.
if ! output="$("$nginx_bin" -t -q -p "$work" -e "$work/logs/error.log" -c "$work/nginx.conf" 2>&1)"; then
  # Name the shipped file, not the temp copy, in nginx's message.
  printf '%s\n' "${output//$work\/site.conf/$site}" >&2
  echo "FAIL: $site is refused by $("$nginx_bin" -v 2>&1)" >&2
  exit 1
fi
[ -z "$output" ] || printf '%s\n' "$output"
echo "ok: $site"
