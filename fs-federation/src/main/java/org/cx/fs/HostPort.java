package org.cx.fs;

import org.cx.fs.FsException.Code;

/** {@code host:port}, as the file service's addresses are written. */
record HostPort(String host, int port) {
    static HostPort parse(String address) throws FsException {
        int colon = address.lastIndexOf(':');
        try {
            if (colon > 0) {
                int port = Integer.parseInt(address.substring(colon + 1));
                if (port > 0 && port < 65536) {
                    return new HostPort(address.substring(0, colon), port);
                }
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new FsException(Code.EINVAL, "'" + address + "' is not an address: give HOST:PORT, e.g. "
                + "127.0.0.1:7200");
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
