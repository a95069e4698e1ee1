#!/usr/bin/env bash
# testdb.sh starts and stops a private MariaDB and PostgreSQL for tests.
#
#   scripts/testdb.sh start DIR   # data under DIR, writes DIR/env
#   scripts/testdb.sh stop DIR    # stops both servers and removes DIR
#   scripts/testdb.sh status DIR  # exit 0 when both servers answer
#   scripts/testdb.sh ensure DIR  # installs the servers' packages when missing
#
# The servers listen on 127.0.0.1 only (ports $SBTEST_MYSQL_PORT, default
# 13306, and $SBTEST_PGSQL_PORT, default 15432) and on unix sockets inside
# DIR. Both get a user sbtest/sbtest owning a database sbtest. Nothing here
# uses systemd, the system's default instances or ports 3306/5432.
# $SBTEST_MAX_CONNECTIONS (default 600) is each server's connection limit,
# applied at every start: the 1000-thread benchmarks need more.
# $SBTEST_ENV_PREFIX (default SBTEST_) names the variables of DIR/env:
# make test starts a second, quiet pair as SBTEST_QUIET_, for the tests
# that read a server's whole counters (testenv.QuietServer).
# $SBTEST_FSYNC=off starts the servers without a flush to disk at each
# commit (MariaDB writes its redo log to the kernel at commit, PostgreSQL
# runs with fsync=off): a server process killed keeps every commit, only a
# crash of the machine loses some. make test runs so (its tests kill
# servers, never the machine); benchmarks keep the default, on.
set -euo pipefail

MYSQL_PORT=${SBTEST_MYSQL_PORT:-13306}
PGSQL_PORT=${SBTEST_PGSQL_PORT:-15432}
START_TIMEOUT=${SBTEST_START_TIMEOUT:-90}
MAX_CONNECTIONS=${SBTEST_MAX_CONNECTIONS:-600}
ENV_PREFIX=${SBTEST_ENV_PREFIX:-SBTEST_}
FSYNC=${SBTEST_FSYNC:-on}

die() {
	echo "testdb.sh: $*" >&2
	exit 1
}
log() { echo "testdb.sh: $*" >&2; }

usage() {
	echo "usage: $0 start|stop|status DIR" >&2
	exit 2
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# first_cmd prints the first of the given commands found in PATH or /usr/sbin.
first_cmd() {
	local c
	for c in "$@"; do
		if command -v "$c" >/dev/null 2>&1; then
			command -v "$c"
			return 0
		fi
		if [ -x "/usr/sbin/$c" ]; then
			echo "/usr/sbin/$c"
			return 0
		fi
	done
	return 1
}

# pg_bindir prints the bin directory of the newest installed PostgreSQL.
pg_bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
		echo "$d"
		return 0
	fi
	# Non-Debian layouts keep initdb in PATH.
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
		return 0
	fi
	return 1
}

have_servers() {
	first_cmd mariadbd mysqld >/dev/null &&
		first_cmd mariadb-install-db mysql_install_db >/dev/null &&
		first_cmd mariadb mysql >/dev/null &&
		pg_bindir >/dev/null
}

ensure_servers() {
	have_servers && return 0
	if is_root; then
		log "installing mariadb-server and postgresql with apt-get"
		apt-get update
		DEBIAN_FRONTEND=noninteractive apt-get install -y mariadb-server postgresql
		have_servers || die "servers still missing after apt-get install"
		return 0
	fi
	echo "testdb.sh: MariaDB and PostgreSQL server binaries are missing." >&2
	echo "Install them, e.g. on Debian/Ubuntu:" >&2
	echo "  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y mariadb-server postgresql" >&2
	exit 1
}

# port_busy reports whether something accepts TCP connections on 127.0.0.1:$1.
port_busy() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pid_alive() {
	local f=$1 pid
	[ -s "$f" ] || return 1
	pid=$(head -n 1 "$f" 2>/dev/null | tr -dc '0-9')
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# as_pg runs a command as the user that owns the PostgreSQL data: the
# postgres system user when we are root (postgres refuses to run as root).
as_pg() {
	if is_root; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# ---- MariaDB -------------------------------------------------------------

mysql_start() {
	local dir=$1 my=$1/mysql
	local mysqld install client admin
	mysqld=$(first_cmd mariadbd mysqld)
	install=$(first_cmd mariadb-install-db mysql_install_db)
	client=$(first_cmd mariadb mysql)
	admin=$(first_cmd mariadb-admin mysqladmin)
	local sock=$my/mysqld.sock

	if pid_alive "$my/mysqld.pid"; then
		log "MariaDB already running in $my"
	else
		if port_busy "$MYSQL_PORT"; then
			die "port $MYSQL_PORT is already in use (set SBTEST_MYSQL_PORT)"
		fi
		mkdir -p "$my/data" "$my/tmp"
		cat >"$my/my.cnf" <<EOF
[client]
socket=$sock
port=$MYSQL_PORT

[mysqld]
datadir=$my/data
tmpdir=$my/tmp
socket=$sock
port=$MYSQL_PORT
bind-address=127.0.0.1
pid-file=$my/mysqld.pid
log-error=$my/error.log
skip-name-resolve
skip-log-bin
skip-external-locking
performance_schema=OFF
max_connections=$MAX_CONNECTIONS
innodb_buffer_pool_size=256M
innodb_log_file_size=64M
innodb_log_buffer_size=8M
key_buffer_size=8M
max_allowed_packet=64M
character-set-server=utf8mb4
collation-server=utf8mb4_general_ci
EOF
		if [ "$FSYNC" = off ]; then
			printf 'innodb_flush_log_at_trx_commit=2\ninnodb_doublewrite=0\n' >>"$my/my.cnf"
		fi
		# TLS offered (--mysql-ssl=REQUIRED then uses it), with a throw-away
		# self-signed certificate; plain connections are still accepted.
		if [ -s "$my/server.key" ] || { command -v openssl >/dev/null 2>&1 &&
			openssl req -new -x509 -days 3650 -nodes -subj /CN=localhost \
				-keyout "$my/server.key" -out "$my/server.crt" >/dev/null 2>&1; }; then
			printf 'ssl_cert=%s\nssl_key=%s\n' "$my/server.crt" "$my/server.key" >>"$my/my.cnf"
		else
			log "no certificate made (openssl missing or failed): MariaDB runs without TLS"
		fi
		local userarg=()
		if is_root; then userarg=(--user=root); fi
		if [ ! -d "$my/data/mysql" ]; then
			"$install" --defaults-file="$my/my.cnf" "${userarg[@]}" \
				--auth-root-authentication-method=normal --skip-test-db \
				--skip-name-resolve >"$my/install.log" 2>&1 ||
				{
					cat "$my/install.log" >&2
					die "mariadb-install-db failed"
				}
		fi
		# setsid detaches the server from our process group and terminal.
		setsid "$mysqld" --defaults-file="$my/my.cnf" "${userarg[@]}" \
			</dev/null >>"$my/mysqld.out" 2>&1 &
	fi

	local i
	for ((i = 0; i < START_TIMEOUT * 5; i++)); do
		if "$admin" --no-defaults --socket="$sock" -uroot ping >/dev/null 2>&1; then
			break
		fi
		sleep 0.2
	done
	"$admin" --no-defaults --socket="$sock" -uroot ping >/dev/null 2>&1 || {
		tail -n 30 "$my/error.log" >&2 2>/dev/null || true
		die "MariaDB did not start within ${START_TIMEOUT}s"
	}

	"$client" --no-defaults --socket="$sock" -uroot <<'EOF'
CREATE DATABASE IF NOT EXISTS sbtest;
CREATE USER IF NOT EXISTS 'sbtest'@'%' IDENTIFIED BY 'sbtest';
CREATE USER IF NOT EXISTS 'sbtest'@'localhost' IDENTIFIED BY 'sbtest';
GRANT ALL PRIVILEGES ON `sbtest`.* TO 'sbtest'@'%';
GRANT ALL PRIVILEGES ON `sbtest`.* TO 'sbtest'@'localhost';
GRANT ALL PRIVILEGES ON `sbtest\_%`.* TO 'sbtest'@'%';
GRANT ALL PRIVILEGES ON `sbtest\_%`.* TO 'sbtest'@'localhost';
GRANT PROCESS ON *.* TO 'sbtest'@'%';
GRANT PROCESS ON *.* TO 'sbtest'@'localhost';
FLUSH PRIVILEGES;
EOF
}

mysql_stop() {
	local my=$1/mysql admin
	[ -d "$my" ] || return 0
	admin=$(first_cmd mariadb-admin mysqladmin || true)
	if pid_alive "$my/mysqld.pid"; then
		local pid
		pid=$(head -n 1 "$my/mysqld.pid" | tr -dc '0-9')
		if [ -n "$admin" ]; then
			"$admin" --no-defaults --socket="$my/mysqld.sock" -uroot shutdown >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
		else
			kill "$pid" 2>/dev/null || true
		fi
		stop_wait "$pid" MariaDB
	fi
}

# stop_wait waits for pid to exit, then kills it.
stop_wait() {
	local pid=$1 name=$2 i
	for ((i = 0; i < 150; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.2
	done
	log "$name (pid $pid) did not stop in 30s; killing it"
	kill -9 "$pid" 2>/dev/null || true
}

# ---- PostgreSQL ----------------------------------------------------------

pg_start() {
	local dir=$1 pg=$1/pg bin
	bin=$(pg_bindir)
	local data=$pg/data

	mkdir -p "$pg"
	if is_root; then
		chown postgres: "$pg"
		# postgres must be able to reach DIR.
		chmod o+x "$dir"
		as_pg test -x "$pg" || die "user postgres cannot reach $pg: make its parent directories traversable (chmod o+x)"
	fi

	if as_pg "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
		log "PostgreSQL already running in $data"
	else
		if port_busy "$PGSQL_PORT"; then
			die "port $PGSQL_PORT is already in use (set SBTEST_PGSQL_PORT)"
		fi
		if [ ! -s "$data/PG_VERSION" ]; then
			as_pg "$bin/initdb" -D "$data" -U postgres -E UTF8 --locale=C \
				--auth-local=trust --auth-host=scram-sha-256 \
				>"$pg/initdb.log" 2>&1 || {
				cat "$pg/initdb.log" >&2
				die "initdb failed"
			}
			cat >>"$data/postgresql.conf" <<EOF

# testdb.sh
listen_addresses = '127.0.0.1'
port = $PGSQL_PORT
unix_socket_directories = '$pg'
shared_buffers = 128MB
password_encryption = scram-sha-256
logging_collector = off
EOF
			if [ "$FSYNC" = off ]; then
				echo "fsync = off" >>"$data/postgresql.conf"
			fi
			# TLS offered as Debian's packaged server does (sslmode=prefer
			# then uses it), with a throw-away self-signed certificate.
			if command -v openssl >/dev/null 2>&1 &&
				as_pg openssl req -new -x509 -days 3650 -nodes -subj /CN=localhost \
					-keyout "$data/server.key" -out "$data/server.crt" >/dev/null 2>&1 &&
				as_pg chmod 600 "$data/server.key"; then
				echo "ssl = on" >>"$data/postgresql.conf"
			else
				log "no certificate made (openssl missing or failed): PostgreSQL runs without TLS"
			fi
		fi
		as_pg "$bin/pg_ctl" -D "$data" -l "$pg/server.log" -w -t "$START_TIMEOUT" \
			-o "-c max_connections=$MAX_CONNECTIONS" start >/dev/null || {
			tail -n 30 "$pg/server.log" >&2 2>/dev/null || true
			die "PostgreSQL did not start"
		}
	fi

	local psql="$bin/psql"
	[ -x "$psql" ] || psql=$(command -v psql)
	local i
	for ((i = 0; i < START_TIMEOUT * 5; i++)); do
		as_pg "$psql" -h "$pg" -p "$PGSQL_PORT" -U postgres -d postgres -Atc 'SELECT 1' >/dev/null 2>&1 && break
		sleep 0.2
	done
	local q=(as_pg "$psql" -h "$pg" -p "$PGSQL_PORT" -U postgres -v ON_ERROR_STOP=1 -q)
	"${q[@]}" -d postgres <<'EOF'
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sbtest') THEN
    CREATE ROLE sbtest LOGIN PASSWORD 'sbtest' NOSUPERUSER NOCREATEROLE CREATEDB;
  END IF;
END
$$;
EOF
	if [ "$("${q[@]}" -d postgres -Atc "SELECT 1 FROM pg_database WHERE datname = 'sbtest'")" != 1 ]; then
		"${q[@]}" -d postgres -c 'CREATE DATABASE sbtest OWNER sbtest'
	fi
	"${q[@]}" -d sbtest -c 'GRANT ALL ON SCHEMA public TO sbtest'
}

pg_stop() {
	local pg=$1/pg bin
	[ -d "$pg/data" ] || return 0
	bin=$(pg_bindir || true)
	local pid=""
	[ -s "$pg/data/postmaster.pid" ] && pid=$(head -n 1 "$pg/data/postmaster.pid" | tr -dc '0-9')
	if [ -n "$bin" ] && as_pg "$bin/pg_ctl" -D "$pg/data" status >/dev/null 2>&1; then
		as_pg "$bin/pg_ctl" -D "$pg/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
	fi
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		stop_wait "$pid" PostgreSQL
	fi
}

# ---- commands ------------------------------------------------------------

write_env() {
	local dir=$1 p=$ENV_PREFIX
	cat >"$dir/env.tmp" <<EOF
export ${p}MYSQL_HOST=127.0.0.1
export ${p}MYSQL_PORT=$MYSQL_PORT
export ${p}MYSQL_SOCKET=$dir/mysql/mysqld.sock
export ${p}MYSQL_USER=sbtest
export ${p}MYSQL_PASSWORD=sbtest
export ${p}MYSQL_DB=sbtest
export ${p}PGSQL_HOST=127.0.0.1
export ${p}PGSQL_PORT=$PGSQL_PORT
export ${p}PGSQL_SOCKET=$dir/pg
export ${p}PGSQL_USER=sbtest
export ${p}PGSQL_PASSWORD=sbtest
export ${p}PGSQL_DB=sbtest
EOF
	# Renamed into place so pollers never see a half-written file.
	mv "$dir/env.tmp" "$dir/env"
}

cmd_start() {
	local dir=$1
	ensure_servers
	[ "$MYSQL_PORT" != 3306 ] || die "refusing to use the default MySQL port 3306"
	[ "$PGSQL_PORT" != 5432 ] || die "refusing to use the default PostgreSQL port 5432"
	mkdir -p "$dir"
	# Unix socket paths are limited to 107 bytes.
	if [ ${#dir} -gt 80 ]; then
		die "DIR path too long for unix sockets (${#dir} > 80 bytes): $dir"
	fi
	rm -f "$dir/env"
	mysql_start "$dir"
	pg_start "$dir"
	write_env "$dir"
	log "MariaDB on 127.0.0.1:$MYSQL_PORT, PostgreSQL on 127.0.0.1:$PGSQL_PORT; env in $dir/env"
}

cmd_stop() {
	local dir=$1
	[ -e "$dir" ] || return 0
	mysql_stop "$dir"
	pg_stop "$dir"
	rm -rf "$dir"
}

cmd_status() {
	local dir=$1 rc=0 admin bin
	admin=$(first_cmd mariadb-admin mysqladmin)
	bin=$(pg_bindir)
	if "$admin" --no-defaults --socket="$dir/mysql/mysqld.sock" -uroot ping >/dev/null 2>&1; then
		echo "mysql: up"
	else
		echo "mysql: down"
		rc=1
	fi
	if "$bin/pg_isready" -q -h "$dir/pg" -p "$PGSQL_PORT"; then
		echo "pgsql: up"
	else
		echo "pgsql: down"
		rc=1
	fi
	return $rc
}

[ $# -eq 2 ] || usage
[ -n "$2" ] || usage
case $2 in
/*) DIR=$2 ;;
*) DIR=$(pwd)/$2 ;;
esac
DIR=${DIR%/}
[ "$DIR" != "" ] && [ "$DIR" != / ] || die "refusing DIR=/"

case $1 in
start) cmd_start "$DIR" ;;
stop) cmd_stop "$DIR" ;;
status) cmd_status "$DIR" ;;
ensure) ensure_servers ;;
*) usage ;;
esac
