"""Printing over USB: a Marlin-style printer on a serial port, streamed line by line.

serial_host.py      the host a print belongs to: pause (park), resume (safe after a replug or a
                    printer restart), abort; serial_stream.py underneath streams lines with credits
serial_link.py      the port on the asyncio loop;  serial_port.py opening it exclusively (flock and
                    TIOCEXCL), the M115 handshake
serial_protocol.py  line numbers, checksums, resends;  link_watchdog.py a lost `ok`, a printer
                    gone silent
print_job.py        the streamed file and its layers;  gcode_state.py what the confirmed lines set
                    (position, modes, temperatures);  resume_plan.py the G-code of park, unpark,
                    resume after a reconnect and resume from a layer
temperatures.py     M155 auto-report and `T:/B:` parsing;  port_scan.py likely printer ports first
emulator.py         a Marlin-like printer on a pseudo-terminal (tests and the streaming bench)
"""
