function c = rodd_client(url, token, varargin)
%RODD_CLIENT  A connection to a rodd daemon.
%   c = rodd_client('http://127.0.0.1:8080') or rodd_client(url, token) with a bearer
%   token when the daemon has tokens configured ('' for none). Every other rodd_* function
%   takes c. Option 'transport': how requests travel (c.transport says which was chosen):
%     'web'    MATLAB's webread/webwrite (MATLAB's default);
%     'socket' one kept-alive HTTP/1.1 connection through tcpclient (GNU Octave's default
%              for http:// URLs when its instrument-control package is installed:
%              Debian's octave-instrument-control, or pkg install -forge instrument-control);
%              Octave's own webwrite cannot send a JSON body, so Octave does not use it;
%              tested under Octave only (with MATLAB's tcpclient it is untested);
%     'curl'   one curl process per request (Octave's fallback: https:// URLs, no
%              instrument-control); rodd_step 12.6 ms median where 'socket' takes 3.6
%              (make bench-lockstep).
%   c = rodd_client(url, '', 'transport', 'curl')
  if nargin < 2
    token = '';
  end
  transport = '';
  for k = 1:2:numel(varargin)
    if strcmpi(varargin{k}, 'transport')
      transport = lower(varargin{k + 1});
    else
      error('rodd:usage', 'rodd_client: unknown option %s', varargin{k});
    end
  end
  octave = exist('OCTAVE_VERSION', 'builtin') ~= 0;
  url = regexprep(url, '/+$', '');
  % host (a bracketed IPv6 literal too), port and a path prefix of a plain http:// URL
  where = regexp(url, '^http://(\[[^\]]+\]|[^/:]+)(?::(\d+))?(/.*)?$', 'tokens', 'once');
  if isempty(transport)
    if ~octave
      transport = 'web';
    elseif ~isempty(where) && has_tcpclient()
      transport = 'socket';
    else
      transport = 'curl';
    end
  end
  if ~any(strcmp(transport, {'web', 'socket', 'curl'}))
    error('rodd:usage', 'rodd_client: transport is web, socket or curl, not %s', transport);
  end
  c = struct('url', url, 'token', token, 'timeout', 60, 'octave', octave, 'transport', transport);
  if strcmp(transport, 'socket')
    if isempty(where)
      error('rodd:usage', 'rodd_client: the socket transport takes an http:// URL, not %s', url);
    end
    if ~has_tcpclient()
      error('rodd:usage', 'rodd_client: the socket transport needs tcpclient (Octave: the instrument-control package)');
    end
    port = 80;
    if numel(where) >= 2 && ~isempty(where{2})
      port = str2double(where{2});
    end
    prefix = '';
    if numel(where) >= 3
      prefix = where{3};
    end
    c.host = regexprep(where{1}, '^\[(.*)\]$', '$1');
    c.port = port;
    c.authority = url(8:end - numel(prefix));
    c.prefix = prefix;
    % a handle: every copy of c shares the one connection, opened at the first request
    c.connection = containers.Map();
  end
end

function ok = has_tcpclient()
  ok = exist('tcpclient') ~= 0;
  if ~ok && exist('OCTAVE_VERSION', 'builtin') ~= 0 && ~isempty(pkg('list', 'instrument-control'))
    pkg('load', 'instrument-control');
    ok = exist('tcpclient') ~= 0;
  end
end
