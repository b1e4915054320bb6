"""Names vulture cannot see used (``make quick`` runs vulture over the package, the tools and the tests).

Each line says who uses the name. Never run nor type-checked: vulture reads it as source, and matches
names only (``_`` stands for an object of a framework's).
"""
# ruff: noqa: B018, F821 - every line is an expression vulture reads as a use, never run

from referee import cli_common
from referee.board import server
from service import app as service_app
from service import gunicorn_conf

cli_common.CLICK_UNMARKED  # marks Click's unmarked "required" for the catalogs (Babel reads it, no code does)
_.whitespace_split  # shlex reads it (tools/docs.py: split_pipeline)
_.json.sort_keys  # Flask's JSON provider reads it (referee/board/app.py, service/app.py)
_.isolation_level  # psycopg reads it to begin a read (referee/store_pg.py: REPEATABLE READ)
_.g.previous_language  # read back with g.get("previous_language") in referee/board/language.py
service_app._NoSessions.open_session  # Flask calls the session interface
service_app._NoSessions.save_session  # Flask calls the session interface
service_app.WordServiceFlask.session_interface  # Flask reads the app class's session interface
server.worker_class().handle_quit  # gunicorn's worker calls it on SIGINT/SIGQUIT
server.worker_class().alive  # gunicorn's worker loop reads it
server.BoardServer.load_config  # gunicorn's BaseApplication calls it
gunicorn_conf.worker_connections  # gunicorn reads its settings from the config module by name (to reload)
gunicorn_conf.graceful_timeout
gunicorn_conf.max_requests
gunicorn_conf.limit_request_line
gunicorn_conf.limit_request_fields
gunicorn_conf.limit_request_field_size
gunicorn_conf.accesslog
gunicorn_conf.errorlog
gunicorn_conf.loglevel
gunicorn_conf.reload
gunicorn_conf.control_socket_disable
gunicorn_conf.worker_tmp_dir
gunicorn_conf.on_starting  # gunicorn's server hooks, by name (to post_request)
gunicorn_conf.pre_request
gunicorn_conf.post_request
_.must_close  # gunicorn's request reads it after the answer (service/gunicorn_conf.py pre_request)
_.write_error  # gunicorn.util.write_error, replaced: gunicorn calls it for its own error pages
_.pids  # tests/board_support.Board.pids: benchmarks/bench_board.py uses it
_.binary_location  # selenium's ChromeOptions reads it (tests/board_support.py)
_.handle_starttag  # html.parser.HTMLParser calls them (tests/test_board_i18n.py, to handle_data)
_.handle_endtag
_.handle_data
_.log_message  # http.server's handler calls it (tests/test_examples.py)
_.should_close  # gunicorn's response calls it (tests/test_reliability_service.py)
_.handlers  # logging reads a logger's handlers (tests/test_service_gunicorn.py)
_.format_message  # Click calls it to print a ClickException (referee/cli_failures.py)
_.hosted_set_cookie  # read back with g.get after the request (referee/board/hosted.py _remember_code)
_.unsure  # benchmarks/hosted_load.py's check reads it (tests/test_load_faults.py sets it on a doctored table)
_.seat_hidden  # read back with g.get by the phones' routes' error handlers (referee/board/players.py _hidden_seat)
_.seat_code_known  # the same (referee/board/players.py _hidden_seat)
