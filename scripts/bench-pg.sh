# Sourced by the benchmarks that need a scratch PostgreSQL (bench-db,
# bench-inventory-pg, bench-zones), after they set $work (a temporary
# directory, mode 755) and before their cleanup trap is set:
#   pg_find        set $pgbin: BENCH_PG_BIN, else the newest
#                  /usr/lib/postgresql/*/bin; empty when no server is there
#   pg_start OPTS  initdb in $work/pg/data and start it on a Unix socket in
#                  $work/pg (no TCP), as the postgres user when run as root
#                  (the server refuses root), extra server OPTS; sets $pg_admin
#   pg_stop        stop it at once (the cleanup trap's part)
#   pg_psql ARGS   the cluster's psql
pg_find() {
	pgbin=${BENCH_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
	[ -n "$pgbin" ] && [ -x "$pgbin/postgres" ] || pgbin=
}
as_pg() { (cd "$work" && if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi); }
pg_start() {
	mkdir "$work/pg"
	[ "$(id -u)" -eq 0 ] && chown postgres "$work/pg"
	as_pg "$pgbin/initdb" -D "$work/pg/data" -A trust -U postgres >/dev/null
	as_pg "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
		-o "-c listen_addresses= -k $work/pg $*" start >/dev/null
	pg_admin="postgresql:///postgres?host=$work/pg&user=postgres"
}
pg_stop() {
	[ -z "${pgbin:-}" ] || [ ! -f "$work/pg/data/postmaster.pid" ] ||
		as_pg "$pgbin/pg_ctl" -D "$work/pg/data" -m immediate stop >/dev/null 2>&1
}
pg_psql() {
	if [ -x "$pgbin/psql" ]; then "$pgbin/psql" "$@"; else psql "$@"; fi
}
