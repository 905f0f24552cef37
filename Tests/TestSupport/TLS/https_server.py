"""An HTTPS server on 127.0.0.1 for the tests (see HTTPSServer.swift): python3 https_server.py ROOT CERT KEY PLAIN_PORT.

Serves the files under ROOT; /to-http/PATH redirects to http://127.0.0.1:PLAIN_PORT/PATH.
Prints the port it listens on, then serves until it is killed.
"""
import http.server
import ssl
import sys
from functools import partial

root, cert, key, plain_port = sys.argv[1:5]


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/to-http/"):
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{plain_port}/{self.path[len('/to-http/'):]}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=root))
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
