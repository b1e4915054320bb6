"""The OpenAPI 3.1 document of the players' API (``/api/openapi.json``), built from the same constants the
code uses."""
from __future__ import annotations

from typing import Any

from referee.board.seats import ACTIONS
from referee.starting import DICE, OPTION_NAMES


def _problem_ref() -> dict[str, Any]:
    return {"description": "A refusal (application/problem+json, in the request's language)",
            "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}


OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "uw-referee board: players' API", "version": "1",
             "description": "Phones, bots and the CLI share one contract: every write goes through the referee "
                            "library and its turn guard. Served only by a board started with --players. On a board "
                            "started with --hosted, anyone starts a table (POST /api/tables), and every route of game "
                            "{id} answers only a request that carries the game's join code (?code=, or the cookie "
                            "uw_code_{id} a page opened with it sets), a seat's token of that game, or the game's "
                            "host token; any other request, like one for a game that does not exist, is the same "
                            "404. No route lists the games."},
    "components": {
        "securitySchemes": {"seat": {"type": "http", "scheme": "bearer"},
                            "seatCookie": {"type": "apiKey", "in": "cookie", "name": "uw_seat_{game}"},
                            "host": {"type": "http", "scheme": "bearer",
                                     "description": "The host secret printed on the terminal; on a hosted board also "
                                                    "the game's host token (POST /api/tables answers it), which is "
                                                    "the host of that game only."},
                            "joinCode": {"type": "apiKey", "in": "query", "name": "code",
                                         "description": "--hosted: the game's join code"},
                            "joinCookie": {"type": "apiKey", "in": "cookie", "name": "uw_code_{game}",
                                           "description": "--hosted: set by a page opened with ?code="}},
        "schemas": {
            "Problem": {"type": "object", "properties": {"type": {"type": "string"}, "title": {"type": "string"},
                                                          "status": {"type": "integer"},
                                                          "detail": {"type": "string"}}},
            "Game": {"type": "object", "properties": {"game": {"type": "integer"}, "events": {"type": "integer"},
                                                       "version": {"$ref": "#/components/schemas/Version"},
                                                       "phase": {"type": "string"}, "over": {"type": "boolean"},
                                                       "waiting": {"type": "object"}, "seat": {"type": ["string", "null"]},
                                                       "your_turn": {"type": "boolean"},
                                                       "can_undo": {"type": "boolean"},
                                                       "next_game": {"type": ["integer", "null"]},
                                                       "recent": {"type": "array", "items": {"type": "string"},
                                                                  "description": "The last actions, newest first"}}},
            "Version": {"type": "string", "pattern": "^[0-9]{1,9}-[0-9a-f]{16}$",
                        "description": "The game's version: its event count and a digest of its chain of events (the "
                                       "board's event-stream id). Every read returns it; every write sends the one it "
                                       "was decided on as seen, and is refused (409) on any other."},
        },
    },
    "paths": {
        "/api/tables": {
            "post": {"summary": "Start a table (--hosted): the same set-up as 'uw-referee new'",
                     "requestBody": {"content": {"application/json": {"schema": {
                         "type": "object", "required": ["players"],
                         "properties": {"players": {"type": "array", "items": {"type": "string"},
                                                    "description": "Names in seat order (2 to 8; 7 or 8 need the "
                                                                   "double deck)"},
                                        "options": {"type": "array", "items": {"enum": list(OPTION_NAMES)}},
                                        "dice": {"enum": list(DICE), "default": "virtual"},
                                        "first": {"type": "string",
                                                  "description": "Physical dice: who won the table's roll-off"},
                                        "deck": {"oneOf": [{"enum": ["standard", "double"]}, {
                                            "type": "object", "properties": {"counts": {"type": "object"},
                                                                             "points": {"type": "object"}}}]},
                                        "target": {"type": "integer", "default": 100},
                                        "level": {"type": "integer"},
                                        "card_accounting": {"type": "boolean", "default": True}}}}}},
                     "responses": {"201": {"description": "The table: game, code, join, board and host links, "
                                                          "host_token, keep_days (Location: its board)"},
                                   "400": _problem_ref(), "422": _problem_ref(), "429": _problem_ref(),
                                   "503": _problem_ref()}}},
        "/api/games/{id}/export": {
            "get": {"summary": "The game as 'uw-referee export' prints it, to the byte, once it is over "
                               "(--hosted; 409 before)",
                    "security": [{"joinCode": []}, {"joinCookie": []}, {"seat": []}, {"seatCookie": []}, {"host": []}],
                    "responses": {"200": {"description": "The game's JSON document, as a download"},
                                  "404": _problem_ref(),
                                  "409": _problem_ref()}}},
        "/api/games/{id}": {"get": {"summary": "Read a game (as the board shows it)",
                                    "responses": {"200": {"description": "The game"}, "404": _problem_ref()}}},
        "/api/games/{id}/seats": {
            "get": {"summary": "Which seats are taken", "responses": {"200": {"description": "The seats"}}},
            "post": {"summary": "Take a seat with the join code",
                     "requestBody": {"content": {"application/json": {"schema": {
                         "type": "object", "required": ["code", "seat"],
                         "properties": {"code": {"type": "string"}, "seat": {"type": "string"}}}}}},
                     "responses": {"201": {"description": "The seat's token (also set as an HttpOnly, SameSite=Strict "
                                                          "cookie) and its CSRF token"},
                                   "400": _problem_ref(), "403": _problem_ref(), "409": _problem_ref(),
                                   "429": _problem_ref()}}},
        "/api/games/{id}/seats/{seat}": {
            "delete": {"summary": "Release a seat (the host)", "security": [{"host": []}],
                       "responses": {"204": {"description": "Released"}, "401": _problem_ref(), "403": _problem_ref(),
                                     "404": _problem_ref()}}},
        "/api/games/{id}/play": {
            "get": {"summary": "The game as a seat sees it", "security": [{"seat": []}, {"seatCookie": []}],
                    "responses": {"200": {"description": "The game",
                                          "content": {"application/json": {"schema": {
                                              "$ref": "#/components/schemas/Game"}}}},
                                  "401": _problem_ref()}}},
        "/api/games/{id}/verdict": {
            "get": {"summary": "The verdict on ?word= tried on the game as it is",
                    "parameters": [{"name": "word", "in": "query", "schema": {"type": "string"},
                                    "description": "The word (its first 40 characters)"}],
                    "responses": {"200": {"description": "legal, reasons, score, letters, chance, playable, refusal"},
                                  "404": _problem_ref()}}},
        "/api/games/{id}/host": {
            "get": {"summary": "The game, the seats and the requests waiting (the host's page)", "security": [{"host": []}],
                    "responses": {"200": {"description": "The game, its seats and requests"}, "401": _problem_ref(),
                                  "403": _problem_ref()}}},
        "/api/games/{id}/corrections": {
            "post": {"summary": "Undo or redo the last action (the host)", "security": [{"host": []}],
                     "responses": {"200": {"description": "The game after it"}, "401": _problem_ref(), "403": _problem_ref(),
                                   "409": _problem_ref(), "422": _problem_ref()}}},
        "/api/games/{id}/requests": {
            "post": {"summary": "A seat asks the host for an undo, a redo, a correction of the latest roll "
                                "({\"action\": \"amend\", \"roll\": N}) or to leave the game", "security": [{"seat": []}, {"seatCookie": []}],
                     "responses": {"202": {"description": "Asked; the host's page lists it"},
                                   "200": {"description": "The same request of this seat is already waiting: that one"},
                                   "401": _problem_ref(), "403": _problem_ref(), "409": _problem_ref()}}},
        "/api/games/{id}/requests/{request}": {
            "post": {"summary": "The host confirms ({\"confirm\": true}) or refuses a request", "security": [{"host": []}],
                     "responses": {"200": {"description": "Confirmed and made"}, "204": {"description": "Refused"},
                                   "401": _problem_ref(), "403": _problem_ref(), "404": _problem_ref(), "409": _problem_ref()}}},
        "/api/games/{id}/actions": {
            "post": {"summary": "Act for a seat", "security": [{"seat": []}, {"seatCookie": []}],
                     "description": "With the cookie, the X-CSRF-Token header must carry the seat's CSRF token.",
                     "requestBody": {"content": {"application/json": {"schema": {
                         "type": "object", "required": ["action", "seen"],
                         "properties": {"action": {"enum": sorted(ACTIONS)}, "seen": {"$ref": "#/components/schemas/Version"},
                                        "word": {"type": "string"}, "roll": {"type": "integer"},
                                        "letters": {"type": "string"}, "skip": {"type": "boolean"}}}}}},
                     "responses": {"200": {"description": "The game after the action, with its notes"},
                                   "400": _problem_ref(), "401": _problem_ref(), "403": _problem_ref(),
                                   "409": _problem_ref(), "422": _problem_ref(), "429": _problem_ref()}}},
    },
}


#: Each path parameter's schema: a game's number (as Flask's ``int`` converter takes it), a seat's player name, a
#: request's id.
PATH_PARAMETERS: dict[str, dict[str, Any]] = {
    "id": {"type": "integer", "minimum": 0, "description": "The game's number"},
    "seat": {"type": "string", "minLength": 1, "description": "The seat's player name"},
    "request": {"type": "string", "minLength": 1, "description": "The request's id (POST /requests answers it)"},
}
#: The refusals every operation may answer: a malformed request (400), a game that is not there or may not be seen
#: (404, on a hosted board one answer for both), a method the path does not take (405, with Allow), a limit of
#: the client's (429, with Retry-After) and the database away or damaged (503, with Retry-After).
EVERY_ROUTE = (400, 404, 405, 429, 503)
#: And the operations that need a seat's, the host's or the game's credentials: none given (401), not enough (403).
CREDENTIALED = (401, 403)
#: And the writes: the game moved on or the seat is taken (409), a body over 64 kB (413), refused by the rules
#: (422).
WRITES = (409, 413, 422)


def _complete(document: dict[str, Any]) -> dict[str, Any]:
    """Every path's parameters and every operation's refusals, each a problem+json (405 with its ``Allow``)."""
    for path, item in document["paths"].items():
        names = [part[1:-1] for part in path.split("/") if part.startswith("{")]
        if names:
            item["parameters"] = [{"name": name, "in": "path", "required": True, "schema": PATH_PARAMETERS[name]}
                                  for name in names]
        for method, operation in item.items():
            if method == "parameters":
                continue
            if "requestBody" in operation:
                operation["requestBody"]["required"] = True
            statuses = [*EVERY_ROUTE, *(CREDENTIALED if path.startswith("/api/games/") else ()),
                        *(WRITES if method in ("post", "delete") else ())]
            for status in statuses:
                operation["responses"].setdefault(str(status), _problem_ref())
            operation["responses"]["405"] = {**_problem_ref(), "headers": {"Allow": {
                "description": "The methods the path takes", "schema": {"type": "string"}}}}
            for status in ("429", "503"):
                operation["responses"][status] = {**operation["responses"][status], "headers": {"Retry-After": {
                    "description": "Seconds to wait before trying again", "schema": {"type": "string"}}}}
    return document


_complete(OPENAPI)
