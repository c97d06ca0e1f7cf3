function [status, raw] = socket_request(c, method, path, body, accept)
%SOCKET_REQUEST  One request over the client's kept-alive HTTP/1.1 connection (tcpclient),
%   opened at the first request and again when the daemon has closed it. A request that a
%   reused connection lost before any byte of the answer came is sent once more on a new
%   one: the daemon closes idle connections (after RODD_CONNECTION_TIMEOUT, 30 s), and a
%   connection it shut down never read the request.
  head = sprintf('%s %s HTTP/1.1\r\nHost: %s\r\nAccept: %s\r\n', method, [c.prefix path], c.authority, accept);
  if ~isempty(c.token)
    head = [head sprintf('Authorization: Bearer %s\r\n', c.token)];
  end
  if ~isempty(body)
    head = [head sprintf('Content-Type: application/json\r\nContent-Length: %d\r\n', numel(uint8(body)))];
  elseif any(strcmp(method, {'POST', 'PUT', 'PATCH'}))
    head = [head sprintf('Content-Length: 0\r\n')];
  end
  request = uint8([head sprintf('\r\n') char(body)]);
  for attempt = 1:2
    reused = isKey(c.connection, 'socket');
    if ~reused
      try
        c.connection('socket') = tcpclient(c.host, c.port, 'Timeout', c.timeout);
      catch e
        error('rodd:connection', 'cannot reach %s: %s', c.url, e.message);
      end
    end
    t = c.connection('socket');
    try
      try
        write(t, request);
      catch e
        error('rodd:lost', '%s', e.message);
      end
      [status, raw, keep] = read_answer(t, method);
    catch e
      remove(c.connection, 'socket');
      if reused && strcmp(e.identifier, 'rodd:lost')
        continue
      end
      error('rodd:connection', 'no answer from %s: %s', c.url, e.message);
    end
    if ~keep
      remove(c.connection, 'socket');
    end
    return
  end
end

function [status, raw, keep] = read_answer(t, method)
  % the status line and headers, then a body of Content-Length bytes, chunked, or up to the
  % end of the connection
  try
    buf = more(t);
  catch e
    if strcmp(e.identifier, 'rodd:timeout')
      rethrow(e);
    end
    error('rodd:lost', '%s', e.message);
  end
  while true
    stop = strfind(char(buf), sprintf('\r\n\r\n'));
    if ~isempty(stop)
      break
    end
    buf = [buf more(t)];
  end
  lines = strsplit(char(buf(1:stop(1) - 1)), sprintf('\r\n'));
  status = sscanf(lines{1}, 'HTTP/%*s %d');
  if isempty(status)
    error('rodd:protocol', 'not an HTTP answer: %s', lines{1});
  end
  raw = buf(stop(1) + 4:end);
  headers = struct('length', '', 'chunked', false, 'close', false);
  for k = 2:numel(lines)
    kv = regexp(lines{k}, '^([^:]+):\s*(.*?)\s*$', 'tokens', 'once');
    if isempty(kv)
      continue
    end
    switch lower(kv{1})
      case 'content-length'
        headers.length = kv{2};
      case 'transfer-encoding'
        headers.chunked = ~isempty(strfind(lower(kv{2}), 'chunked'));
      case 'connection'
        headers.close = strcmpi(kv{2}, 'close');
    end
  end
  keep = ~headers.close;
  if strcmp(method, 'HEAD') || status == 204 || status == 304
    raw = uint8([]);
  elseif headers.chunked
    raw = dechunk(t, raw);
  elseif ~isempty(headers.length)
    need = str2double(headers.length) - numel(raw);
    if need > 0
      raw = [raw exactly(t, need)];
    end
  else
    keep = false;
    try
      while true
        raw = [raw more(t)];
      end
    catch e
      if strcmp(e.identifier, 'rodd:timeout')
        rethrow(e);
      end
    end
  end
end

function body = dechunk(t, buf)
  % RFC 9112 section 7.1: hex size line, data, CRLF; a zero size ends it (trailers ignored)
  body = uint8([]);
  while true
    eol = strfind(char(buf), sprintf('\r\n'));
    while isempty(eol)
      buf = [buf more(t)];
      eol = strfind(char(buf), sprintf('\r\n'));
    end
    n = hex2dec(strtok(char(buf(1:eol(1) - 1)), ';'));
    buf = buf(eol(1) + 2:end);
    if n == 0
      while isempty(strfind(char(buf), sprintf('\r\n')))
        buf = [buf more(t)];
      end
      return
    end
    if numel(buf) < n + 2
      buf = [buf exactly(t, n + 2 - numel(buf))];
    end
    body = [body buf(1:n)];
    buf = buf(n + 3:end);
  end
end

function b = more(t)
  % at least one byte: waits for the first, then takes what has arrived
  b = read(t, 1);
  if isempty(b)
    error('rodd:timeout', 'no answer within the timeout');
  end
  n = t.NumBytesAvailable;
  if n > 0
    b = [b(:)' reshape(read(t, n), 1, [])];
  end
  b = uint8(b);
end

function b = exactly(t, n)
  b = uint8(reshape(read(t, n), 1, []));
  if numel(b) < n
    error('rodd:timeout', 'the answer stopped %d bytes short', n - numel(b));
  end
end
