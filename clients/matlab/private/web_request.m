function [status, raw] = web_request(c, method, url, body, accept)
%WEB_REQUEST  One request through MATLAB's webread/webwrite (Octave's webwrite sends form
%   fields only, never a JSON body).
  headers = {'Accept', accept};
  if ~isempty(c.token)
    headers(end + 1, :) = {'Authorization', ['Bearer ' c.token]};
  end
  o = weboptions('RequestMethod', lower(method), 'Timeout', c.timeout, 'HeaderFields', headers, ...
                 'ContentType', 'raw', 'MediaType', 'application/json');
  status = 200;
  try
    if isempty(body)
      raw = webread(url, o);
    else
      raw = webwrite(url, body, o);
    end
  catch e
    % webread/webwrite keep the status in the message ("... status 422 ...")
    tok = regexp(e.message, '(\d{3})', 'tokens', 'once');
    if isempty(tok)
      rethrow(e);
    end
    status = str2double(tok{1});
    raw = uint8(e.message);
  end
  raw = uint8(raw(:)');
end
