package org.mpfl.runtime.transport.binary;

import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A TLS socket's streams as one blocking {@link ByteChannel}, so that {@link ChannelBuffer} and the
 * frame writers work unchanged over TLS. Reads honour the socket's {@code SO_TIMEOUT} (an
 * {@link javax.net.ssl.SSLSocket} reads through its stream); the plaintext path keeps its
 * {@link java.nio.channels.SocketChannel} and never comes here. Reading and writing may happen on
 * different threads (the socket's streams allow it).
 */
final class SocketStreams implements ByteChannel {
    private final Socket socket;
    private final ReadableByteChannel in;
    private final WritableByteChannel out;

    SocketStreams(Socket socket) throws IOException {
        this.socket = socket;
        this.in = Channels.newChannel(socket.getInputStream());
        this.out = Channels.newChannel(socket.getOutputStream());
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return in.read(dst);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return out.write(src);
    }

    @Override
    public boolean isOpen() {
        return !socket.isClosed();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
