function c = rodd_client(url, token)
%RODD_CLIENT  A connection to a rodd daemon.
%   c = rodd_client('http://127.0.0.1:8080') or rodd_client(url, token) with a bearer
%   token when the daemon has tokens configured. Every other rodd_* function takes c.
%   MATLAB talks through webread/webwrite; GNU Octave, whose webwrite cannot send a JSON
%   body, through curl.
  if nargin < 2
    token = '';
  end
  c = struct('url', regexprep(url, '/+$', ''), 'token', token, 'timeout', 60, ...
             'octave', exist('OCTAVE_VERSION', 'builtin') ~= 0);
end
