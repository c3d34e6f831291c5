/**
 * Raw MQTT 3.1.1 bytes for tests and benches that must write what a client library would refuse to
 * send (oversized packets, floods): written from the MQTT 3.1.1 specification (§2.2.3 remaining
 * length, §1.5.3 UTF-8 strings, §3.1 CONNECT), independent of the broker's own framer.
 */

/** §2.2.3 remaining length: 7 bits a byte, low group first, continuation bit 0x80. */
export function remainingLength(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

/** §1.5.3 string: two-byte big-endian length, then the UTF-8 bytes. */
export function mqttString(s: string): number[] {
  const b = [...Buffer.from(s)];
  return [b.length >> 8, b.length & 0xff, ...b];
}

/** §3.1 CONNECT (protocol level 4, clean session, user name and password, keep-alive 30 s). */
export function connectPacket(clientId: string, user: string, pass: string): Buffer {
  const body = [
    ...mqttString('MQTT'),
    4,
    0xc2,
    0,
    30,
    ...mqttString(clientId),
    ...mqttString(user),
    ...mqttString(pass),
  ];
  return Buffer.from([0x10, ...remainingLength(body.length), ...body]);
}
